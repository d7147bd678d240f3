#include "solvers/parallel/group_plan.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "solvers/pipeline/pipeline_plan.hpp"
#include "solvers/problem/left_out.hpp"

namespace meshplan {

void fill_group_plan(Plan& plan, const ModelDesc& model, const PlanInputs& in,
                     const CollectivePath& path, const GroupEvaluation& e,
                     const GroupPlanSpec& spec) {
  plan.model_name = model.name;
  plan.quantization = model.quantization;
  plan.num_layers = model.num_layers();
  plan.attention_heads = model.num_heads;
  plan.kv_heads = model.num_kv_heads;
  plan.hidden_size = model.hidden_size;
  plan.routed_experts = model.routed_experts();
  plan.total_bytes = model.total_bytes();
  plan.context = spec.context;
  plan.prompt = spec.prompt;
  plan.strategy = spec.strategy;
  plan.backend = path.backend;
  plan.activation_bytes = spec.message_bytes;
  plan.stage_overhead_s = e.overhead_s;
  size_t slowest = 0;
  for (size_t r = 0; r < path.ranks(); ++r) {
    const HostFigures& h = in.hosts[path.order[r]];
    RankPlan rank;
    rank.rank = static_cast<int>(r);
    rank.host = h.name;
    rank.layer_start = 0;
    rank.layer_end = model.num_layers();
    rank.holds_head = true;
    rank.weight_bytes = e.weight_bytes[r];
    rank.kv_bytes = e.kv_bytes[r];
    rank.total_bytes = e.memory_bytes[r];
    rank.usable_bytes = h.usable_bytes;
    rank.bandwidth = h.bandwidth;
    rank.flops = h.flops;
    rank.stage_s = e.rank_s[r];
    rank.gpu_collective_s = in_host_collectives_s(h, model.hidden_size, 1);
    rank.gpu_collective_per_stream_s = in_host_per_token_s(h, model.hidden_size);
    if (path.ranks() > 1 && path.next[r]) {
      const LinkFigures& l = *path.next[r];
      rank.hop_to_next = HopInfo{l.name, l.latency_s, l.bandwidth, l.hop_time(spec.message_bytes)};
    }
    if (e.rank_s[r] > e.rank_s[slowest]) slowest = r;
    plan.ranks.push_back(rank);
  }
  Prediction& p = plan.predicted;
  p.token_latency_s = e.token_latency_s;
  p.decode_tokens_per_s = 1.0 / e.token_latency_s;
  p.ttft_s = e.ttft_s;
  p.stages_s = e.layers_s;
  p.head_s = e.head_s;
  p.hops_s = e.collective_s;
  if (path.worst && e.collective_s > e.layers_s) {
    p.bottleneck = fmt::format("{} over {} ({:.0f} % of the token time)", spec.collective_what,
                               path.worst->name, 100.0 * e.collective_s / e.token_latency_s);
  } else {
    std::string note = spec.rank_note ? spec.rank_note(slowest) : "";
    p.bottleneck = fmt::format("{} on {} (rank {}{}, {:.0f} % of the token time in layers)",
                               e.memory_bound[slowest] ? "memory bandwidth" : "compute",
                               plan.ranks[slowest].host, slowest, note.empty() ? "" : ", " + note,
                               100.0 * e.layers_s / e.token_latency_s);
  }
  if (path.ranks() > 1 && path.worst) {
    CollectiveInfo c;
    c.kind = collective_name(path.kind);
    c.link = path.worst->name;
    c.latency_s = path.worst->latency_s;
    c.peer_s = path.peer_s;
    c.bandwidth = path.worst->bandwidth;
    c.per_layer_s = spec.collective_per_layer_s;
    c.layers = spec.collective_layers;
    c.total_s = e.collective_s;
    plan.collective = c;
  }
}

void complete_group_plan(Plan& plan, const PlanningProblem& problem) {
  const PlanInputs& in = problem.inputs();
  std::vector<size_t> members;
  for (const RankPlan& r : plan.ranks)
    for (size_t i = 0; i < in.size(); ++i)
      if (in.hosts[i].name == r.host) members.push_back(i);
  for (BaselineInfo& b : pipeline_baselines(problem, members, plan.predicted.token_latency_s))
    plan.baselines.push_back(std::move(b));
  std::string constrained;
  if (problem.request().max_hosts > 0) constrained = "--max-hosts";
  record_left_out(plan, problem, constrained);
}

}  // namespace meshplan
