#include "deploy/writers/vllm_launch.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "deploy/layout/launch_nodes.hpp"
#include "deploy/writers/nccl_env.hpp"
#include "lib/plan/strategy_kind.hpp"

namespace meshplan {

VllmShape vllm_shape(const LaunchLayout& layout) {
  VllmShape s;
  s.pipeline = !is_strategy(layout.strategy, StrategyKind::kTensor) &&
               !is_strategy(layout.strategy, StrategyKind::kExpert);
  // A tensor or expert plan splits every layer over all the GPUs of all its nodes.
  for (const LaunchNode& node : layout.nodes)
    s.tp += node.processes();
  s.pp = 1;
  if (s.pipeline) {
    // A pipeline's stages are its hosts, or the groups of GPUs inside them, tp GPUs each.
    std::vector<int> counts = stage_layer_counts(layout, "vllm", s.tp);
    s.pp = static_cast<int>(counts.size());
    s.partition = fmt::format("{}", fmt::join(counts, ","));
  }
  return s;
}

std::vector<std::pair<std::string, std::string>> vllm_node_env(const LaunchLayout& layout,
                                                               size_t node,
                                                               const VllmShape& shape) {
  std::vector<std::pair<std::string, std::string>> env = {
      {"VLLM_HOST_IP", layout.reachable(node, "VLLM_HOST_IP is the address other nodes reach")}};
  for (auto& kv : nccl_variables(layout, node))
    env.push_back(kv);
  if (shape.pipeline) env.emplace_back("VLLM_PP_LAYER_PARTITION", shape.partition);
  return env;
}

namespace {

// `vllm serve MODEL -tp T -pp P`, then `tail`, then --enable-expert-parallel for an expert plan.
std::vector<std::string> serve_words(const EmitInput& in, const LaunchLayout& layout,
                                     const VllmShape& shape, std::vector<std::string> tail) {
  std::vector<std::string> words = {
      "vllm",
      "serve",
      in.launch.model.empty() ? std::string("MODEL") : in.launch.model,
      "-tp",
      std::to_string(shape.tp),
      "-pp",
      std::to_string(shape.pp)};
  words.insert(words.end(), tail.begin(), tail.end());
  if (is_strategy(layout.strategy, StrategyKind::kExpert))
    words.insert(words.end(), {"--enable-expert-parallel"});
  return words;
}

}  // namespace

std::string vllm_ray_command(const EmitInput& in, const LaunchLayout& layout) {
  VllmShape shape = vllm_shape(layout);
  std::vector<std::pair<std::string, std::string>> env;
  if (shape.pipeline) env.emplace_back("VLLM_PP_LAYER_PARTITION", shape.partition);
  return shell_command(env,
                       serve_words(in, layout, shape,
                                   {"--distributed-executor-backend", "ray", "--host", "0.0.0.0"}));
}

std::vector<std::string> vllm_node_words(const EmitInput& in, const LaunchLayout& layout,
                                         const VllmShape& shape, size_t node) {
  const std::string master =
      layout.reachable(0, "vLLM's master (node rank 0) needs an address every node reaches");
  std::vector<std::string> words =
      serve_words(in, layout, shape,
                  {"--nnodes", std::to_string(layout.nodes.size()), "--node-rank",
                   std::to_string(node), "--master-addr", master, "--master-port",
                   std::to_string(launch_port(in, kVllmDefaultMasterPort))});
  if (node > 0) words.insert(words.end(), {"--headless"});
  return words;
}

std::string write_vllm(const EmitInput& in) {
  require_plan(in, "vllm", "-tp and -pp come from the plan's strategy and ranks");
  const LaunchLayout& layout = in.layout();
  size_t n = layout.nodes.size();
  VllmShape shape = vllm_shape(layout);
  std::string out =
      fmt::format("# vLLM over {} nodes ({} plan): run node 0's line first, then the others.\n", n,
                  is_strategy(layout.strategy, StrategyKind::kHybrid) ? layout.strategy
                  : shape.pipeline ? std::string(name(StrategyKind::kPipeline))
                                   : layout.strategy);
  for (size_t i = 0; i < n; ++i) {
    out += fmt::format("\n# node {}: {}\n", i, layout.nodes[i].host->name);
    out += shell_command(vllm_node_env(layout, i, shape), vllm_node_words(in, layout, shape, i)) +
           "\n";
  }
  return out;
}

}  // namespace meshplan
