#include "deploy/writers/exo_env.hpp"

#include <fmt/format.h>

#include "deploy/layout/launch_nodes.hpp"
#include "lib/core/error.hpp"

namespace meshplan {

// exo's discovery namespace is its --namespace flag (exo-explore/exo src/exo/main.py, default the
// exo version); EXO_ZENOH_NAMESPACE is only logged, so it does not keep two clusters apart.
std::string exo_namespace(const EmitInput& in) {
  return !in.launch.exo_namespace.empty() ? in.launch.exo_namespace
         : in.cluster.name.empty()        ? "meshplan"
                                          : in.cluster.name;
}

std::vector<std::string> exo_words(const EmitInput& in, bool master) {
  // exo's ports sit side by side: API, zenoh one below, discovery (UDP) two below.
  const int api = launch_port(in, kExoDefaultApiPort);
  if (api < 3) throw input_error("--port {}: exo needs the two ports below its API port", api);
  std::vector<std::string> words = {"exo",
                                    "--api-port",
                                    std::to_string(api),
                                    "--zenoh-port",
                                    std::to_string(api - 1),
                                    "--discovery-port",
                                    std::to_string(api - 2),
                                    "--namespace",
                                    exo_namespace(in)};
  if (master) words.push_back("--force-master");
  return words;
}

std::string write_exo_env(const EmitInput& in) {
  const LaunchLayout& layout = in.layout();
  std::string out = fmt::format(
      "# exo on {} hosts, namespace {}: run each host's line (rank 0 first); exo places layers "
      "itself.\n",
      layout.nodes.size(), exo_namespace(in));
  for (size_t i = 0; i < layout.nodes.size(); ++i) {
    out += fmt::format("\n# rank {}: {}\n", i, layout.nodes[i].host->name);
    out += shell_command({}, exo_words(in, i == 0)) + "\n";
  }
  return out;
}

}  // namespace meshplan
