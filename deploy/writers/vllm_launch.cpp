#include "deploy/writers/vllm_launch.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "deploy/layout/launch_nodes.hpp"
#include "deploy/writers/nccl_env.hpp"
#include "lib/core/engine_rules.hpp"
#include "lib/core/error.hpp"
#include "lib/plan/strategy_kind.hpp"

namespace meshplan {

namespace {

// One node whose GPUs the plan left whole (a routed plan's host, a replica of one host) and whose
// GPU count vLLM cannot split the heads over: the widest degree it can, its GPUs as that many
// stages with vLLM's even split of the node's layers.
void fit_one_node(const LaunchLayout& layout, const PlanRanks::ModelShape& model, VllmShape& s) {
  const LaunchNode& node = layout.nodes.front();
  const int gpus = node.processes();
  if (layout.nodes.size() != 1 || !node.gpu_stages.empty() || !node.tp_group.empty() ||
      vllm_tensor_fits(s.tp, model.attention_heads, model.kv_heads))
    return;
  int tp = 1;
  for (int d = gpus; d > 1; --d)
    if (gpus % d == 0 && vllm_tensor_fits(d, model.attention_heads, model.kv_heads)) {
      tp = d;
      break;
    }
  const int layers = node.layers ? node.layers->second - node.layers->first : model.layers;
  s.tp = tp;
  s.pp = gpus / tp;
  s.pipeline = true;
  s.counts.assign(static_cast<size_t>(s.pp), layers / s.pp);
  for (int k = 0; k < layers % s.pp; ++k)
    ++s.counts[static_cast<size_t>(k)];
  s.partition = fmt::format("{}", fmt::join(s.counts, ","));
}

}  // namespace

VllmShape vllm_shape(const LaunchLayout& layout, const PlanRanks::ModelShape& model) {
  VllmShape s = vllm_shape(layout);
  fit_one_node(layout, model, s);
  return s;
}

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
    s.counts = counts;
  }
  return s;
}

std::vector<std::pair<std::string, std::string>> vllm_node_env(const LaunchLayout& layout,
                                                               size_t node,
                                                               const VllmShape& shape) {
  std::vector<std::pair<std::string, std::string>> env = {
      {"VLLM_HOST_IP",
       rendezvous_address(layout, node, "VLLM_HOST_IP is the address other nodes reach")}};
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
  VllmShape shape = vllm_shape(layout, in.plan->model);
  std::vector<std::pair<std::string, std::string>> env;
  if (shape.pipeline) env.emplace_back("VLLM_PP_LAYER_PARTITION", shape.partition);
  return shell_command(env,
                       serve_words(in, layout, shape,
                                   {"--distributed-executor-backend", "ray", "--host", "0.0.0.0"}));
}

std::vector<std::string> vllm_node_words(const EmitInput& in, const LaunchLayout& layout,
                                         const VllmShape& shape, size_t node) {
  // One node starts every rank itself: no master to meet.
  if (layout.nodes.size() == 1) return serve_words(in, layout, shape, {});
  const std::string master = rendezvous_address(
      layout, 0, "vLLM's master (node rank 0) needs an address every node reaches");
  std::vector<std::string> words =
      serve_words(in, layout, shape,
                  {"--nnodes", std::to_string(layout.nodes.size()), "--node-rank",
                   std::to_string(node), "--master-addr", master, "--master-port",
                   std::to_string(launch_port(in, kVllmDefaultMasterPort))});
  if (node > 0) words.insert(words.end(), {"--headless"});
  return words;
}

namespace {

// The engine's rules (lib/core/engine_rules.hpp) on what is about to be written: a failure naming
// the rule when vLLM would refuse the layout or load it otherwise.
void require_vllm_loads(const EmitInput& in, const LaunchLayout& layout, const VllmShape& shape) {
  const PlanRanks::ModelShape& model = in.plan->model;
  std::string why = vllm_tensor_refusal(shape.tp, model.attention_heads, model.kv_heads);
  if (why.empty() && shape.pipeline && model.layers > 0)
    why = vllm_partition_refusal(shape.counts, model.layers, shape.pp);
  if (why.empty() && is_strategy(layout.strategy, StrategyKind::kExpert) &&
      model.routed_experts > 0) {
    const std::vector<int> per_rank = vllm_experts_per_rank(model.routed_experts, shape.tp);
    size_t next = 0;
    for (size_t i = 0; i < layout.nodes.size(); ++i) {
      int loads = 0;
      for (int k = 0; k < layout.nodes[i].processes(); ++k)
        loads += per_rank[next++];
      for (const std::vector<int>& layer : in.plan->ranks[i].experts)  // dense layers hold none
        if (!layer.empty() && static_cast<int>(layer.size()) != loads)
          why = fmt::format(
              "vLLM loads {} experts per layer on {} (an even split of {} over {} GPUs), the plan "
              "{}",
              loads, layout.nodes[i].host->name, model.routed_experts, shape.tp, layer.size());
    }
  }
  if (!why.empty())
    throw failure("vllm: {}; plan again with --engine vllm for a layout vLLM loads", why);
}

std::vector<int> node_ranks(const LaunchLayout& layout) {
  std::vector<int> ranks;
  for (const LaunchNode& node : layout.nodes)
    ranks.push_back(node.processes());
  return ranks;
}

// vLLM on Ray: each node's `ray start` with its variables (Ray's workers inherit them), then the
// one `vllm serve` on the head. Ray orders the workers of the driver's node first, so the first
// stages run on rank 0's node as planned.
std::string write_vllm_on_ray(const EmitInput& in, const LaunchLayout& layout,
                              const VllmShape& shape) {
  const std::vector<int> ranks = node_ranks(layout);
  std::string out = fmt::format(
      "# vLLM over {} nodes on Ray: its multiprocessing launch (--nnodes) starts the same number "
      "of GPU workers on every node, and these give {} GPUs, so Ray places the {} GPUs of -tp {} "
      "-pp {}. Start Ray on every node in this order, then vLLM once on {}.\n",
      layout.nodes.size(), fmt::join(ranks, ", "), shape.tp * shape.pp, shape.tp, shape.pp,
      layout.nodes[0].host->name);
  const int port = launch_port(in, kRayDefaultPort);
  const std::string head =
      rendezvous_address(layout, 0, "Ray's head (rank 0) needs an address every node reaches");
  for (size_t i = 0; i < layout.nodes.size(); ++i) {
    std::vector<std::string> words = {"ray", "start"};
    if (i == 0)
      words.insert(words.end(), {"--head", fmt::format("--port={}", port)});
    else
      words.push_back(fmt::format("--address={}:{}", head, port));
    words.push_back("--node-ip-address=" +
                    rendezvous_address(layout, i, "Ray's nodes reach each other by address"));
    out += fmt::format("\n# node {}: {}\n{}\n", i, layout.nodes[i].host->name,
                       shell_command(vllm_node_env(layout, i, shape), words));
  }
  out += fmt::format("\n# then on {}:\n{}\n", layout.nodes[0].host->name,
                     vllm_ray_command(in, layout));
  return out;
}

}  // namespace

std::string ray_order_refusal(const LaunchLayout& layout) {
  // A tensor plan splits every layer equally over every GPU: any order loads the same.
  if (is_strategy(layout.strategy, StrategyKind::kTensor)) return "";
  std::vector<size_t> order;
  for (size_t i = 1; i < layout.nodes.size(); ++i)
    order.push_back(i);
  auto ip = [&](size_t i) {
    return rendezvous_address(layout, i, "Ray's nodes reach each other by address");
  };
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return std::pair{layout.nodes[a].processes(), ip(a)} <
           std::pair{layout.nodes[b].processes(), ip(b)};
  });
  std::vector<std::string> ray = {layout.nodes[0].host->name};
  bool same = true;
  for (size_t k = 0; k < order.size(); ++k) {
    ray.push_back(layout.nodes[order[k]].host->name);
    same = same && order[k] == k + 1;
  }
  if (same) return "";
  return fmt::format(
      "vLLM on Ray orders its workers by node: the head's, then by GPUs per node and address "
      "(vllm/v1/executor/ray_distributed_executor.py sort_by_driver_then_worker_ip), so it would "
      "load the {} plan's ranks on {}, not on the plan's order",
      layout.strategy, fmt::join(ray, ", "));
}

bool vllm_needs_ray(const LaunchLayout& layout) {
  return !vllm_multiprocessing_fits(node_ranks(layout));
}

std::string write_vllm(const EmitInput& in) {
  require_plan(in, "vllm", "-tp and -pp come from the plan's strategy and ranks");
  const LaunchLayout& layout = in.layout();
  size_t n = layout.nodes.size();
  VllmShape shape = vllm_shape(layout, in.plan->model);
  require_vllm_loads(in, layout, shape);
  if (vllm_needs_ray(layout)) {
    if (std::string why = ray_order_refusal(layout); !why.empty())
      throw failure("vllm: {}; plan again with --engine vllm", why);
    return write_vllm_on_ray(in, layout, shape);
  }
  std::string out =
      n == 1 ? fmt::format(
                   "# vLLM on one node ({} plan): it starts every GPU's worker itself.\n",
                   shape.pipeline ? std::string(name(StrategyKind::kPipeline)) : layout.strategy)
             : fmt::format(
                   "# vLLM over {} nodes ({} plan): run node 0's line first, then the others.\n", n,
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
