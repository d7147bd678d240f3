#include "lib/emit/llama_rpc.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "lib/emit/emit_formats.hpp"

namespace meshplan {

std::string write_llama_rpc(const EmitInput& in) {
  require_plan(in, "llama-rpc", "--tensor-split comes from the plan's layer ranges");
  LaunchLayout layout = build_launch_layout(in);
  std::vector<int> counts = layer_counts(layout, "llama-rpc");
  size_t n = layout.nodes.size();
  size_t main = n - 1;
  int port = launch_port(in, kRpcServerDefaultPort);
  std::string model = in.launch.model.empty() ? "model.gguf" : in.launch.model;
  std::string out = fmt::format(
      "# llama.cpp RPC for {} ranks: start every rpc-server first, then the main command on {}.\n",
      n, layout.nodes[main].host->name);
  std::vector<std::string> endpoints;
  for (size_t i = 0; i < main; ++i) {
    std::string addr = link_address(in, layout, i, main,
                                    "the main host connects to each rpc-server on this address");
    endpoints.push_back(fmt::format("{}:{}", addr, port));
    out += fmt::format("\n# rank {}: on {}, layers [{}, {})\n", i, layout.nodes[i].host->name,
                       layout.nodes[i].layers->first, layout.nodes[i].layers->second);
    out += shell_command({}, {"rpc-server", "-H", addr, "-p", std::to_string(port)}) + "\n";
  }
  out += fmt::format("\n# rank {}: on {}, layers [{}, {}) (main)\n", main,
                     layout.nodes[main].host->name, layout.nodes[main].layers->first,
                     layout.nodes[main].layers->second);
  std::vector<std::string> words = {"llama-server", "-m", model, "-ngl", "99"};
  if (!endpoints.empty()) {
    words.push_back("--rpc");
    words.push_back(fmt::format("{}", fmt::join(endpoints, ",")));
    words.push_back("--tensor-split");
    words.push_back(fmt::format("{}", fmt::join(counts, ",")));
  }
  out += shell_command({}, words) + "\n";
  return out;
}

}  // namespace meshplan
