#include "lib/emit/vllm_launch.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "lib/emit/emit_formats.hpp"
#include "lib/emit/nccl_env.hpp"

namespace meshplan {

std::string write_vllm(const EmitInput& in) {
  require_plan(in, "vllm", "-tp and -pp come from the plan's strategy and ranks");
  LaunchLayout layout = build_launch_layout(in);
  size_t n = layout.nodes.size();
  bool pipeline = layout.strategy != "tensor" && layout.strategy != "expert";
  // A pipeline's stages are its hosts, or the groups of GPUs inside them, tp GPUs each.
  std::string partition;
  // A tensor or expert plan splits every layer over all the GPUs of all its nodes.
  int tp = 0;
  for (const LaunchNode& node : layout.nodes)
    tp += node.processes();
  size_t stages = n;
  if (pipeline) {
    std::vector<int> counts = stage_layer_counts(layout, "vllm", tp);
    stages = counts.size();
    partition = fmt::format("{}", fmt::join(counts, ","));
  }
  std::string master =
      layout.reachable(0, "vLLM's master (node rank 0) needs an address every node reaches");
  int port = launch_port(in, kVllmDefaultMasterPort);
  std::string model = in.launch.model.empty() ? "MODEL" : in.launch.model;
  std::string out =
      fmt::format("# vLLM over {} nodes ({} plan): run node 0's line first, then the others.\n", n,
                  layout.strategy == "hybrid" ? "hybrid"
                  : pipeline                  ? "pipeline"
                                              : layout.strategy);
  for (size_t i = 0; i < n; ++i) {
    std::vector<std::pair<std::string, std::string>> env = {
        {"VLLM_HOST_IP", layout.reachable(i, "VLLM_HOST_IP is the address other nodes reach")}};
    for (auto& kv : nccl_variables(layout, i))
      env.push_back(kv);
    if (pipeline) env.emplace_back("VLLM_PP_LAYER_PARTITION", partition);
    std::vector<std::string> words = {"vllm",
                                      "serve",
                                      model,
                                      "-tp",
                                      std::to_string(tp),
                                      "-pp",
                                      std::to_string(pipeline ? stages : 1),
                                      "--nnodes",
                                      std::to_string(n),
                                      "--node-rank",
                                      std::to_string(i),
                                      "--master-addr",
                                      master,
                                      "--master-port",
                                      std::to_string(port)};
    if (layout.strategy == "expert") words.push_back("--enable-expert-parallel");
    if (i > 0) words.push_back("--headless");
    out += fmt::format("\n# node {}: {}\n", i, layout.nodes[i].host->name);
    out += shell_command(env, words) + "\n";
  }
  return out;
}

}  // namespace meshplan
