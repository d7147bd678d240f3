#include "solvers/pipeline/pipeline_fill.hpp"

#include <fmt/format.h>

#include "lib/cluster/mlx_backend.hpp"
#include "lib/plan/strategy_kind.hpp"
#include "solvers/pipeline/gpu_stages.hpp"

namespace meshplan {

std::string pipeline_backend(const std::vector<std::optional<LinkFigures>>& hops) {
  const std::string none(name(MlxBackend::kNone));
  if (hops.empty()) return none;
  bool all_rdma = true, any_network = false;
  for (const auto& h : hops) {
    if (!h) return none;
    all_rdma = all_rdma && h->rdma;
    any_network = any_network || h->network >= 0;
  }
  if (all_rdma)
    return std::string(name(hops.size() <= 2 ? MlxBackend::kJaccl : MlxBackend::kJacclRing));
  return std::string(name(any_network ? MlxBackend::kEthernet : MlxBackend::kRing));
}

void fill_pipeline_plan(const PipelineCostModel& cost, const PipelineAssignment& a,
                        const PipelineEvaluation& e, Plan& plan) {
  const ModelDesc& model = cost.model();
  plan.model_name = model.name;
  plan.quantization = model.quantization;
  plan.num_layers = model.num_layers();
  plan.attention_heads = model.num_heads;
  plan.kv_heads = model.num_kv_heads;
  plan.hidden_size = model.hidden_size;
  plan.routed_experts = model.routed_experts();
  plan.total_bytes = model.total_bytes();
  plan.context = cost.context();
  plan.prompt = cost.prompt();
  plan.strategy = name(StrategyKind::kPipeline);
  plan.backend = pipeline_backend(e.hops);
  plan.activation_bytes = cost.activation_bytes();
  plan.stage_overhead_s = cost.num_hosts() ? cost.host(0).overhead_s : 0;
  plan.ranks.clear();
  double worst_stage = 0;
  size_t worst = 0;
  for (size_t j = 0; j < a.order.size(); ++j) {
    const HostFigures& h = cost.host(a.order[j]);
    RankPlan r;
    r.rank = static_cast<int>(j);
    r.host = h.name;
    r.layer_start = a.cuts[j];
    r.layer_end = a.cuts[j + 1];
    r.holds_head = j == e.head_rank;
    r.weight_bytes = e.weight_bytes[j];
    r.kv_bytes = e.kv_bytes[j];
    r.total_bytes = e.memory_bytes[j];
    r.usable_bytes = h.usable_bytes;
    r.bandwidth = h.bandwidth;
    r.flops = h.flops;
    r.stage_s = e.stage_s[j];
    r.gpu_collective_s = in_host_collectives_s(h, cost.model().hidden_size, 1);
    r.gpu_collective_per_stream_s = in_host_per_token_s(h, cost.model().hidden_size);
    split_gpu_stages(cost, h, r);
    if (j < e.hops.size() && e.hops[j]) {
      r.hop_to_next = HopInfo{e.hops[j]->name, e.hops[j]->latency_s, e.hops[j]->bandwidth,
                              e.hops[j]->hop_time(cost.activation_bytes())};
    }
    if (r.stage_s > worst_stage) {
      worst_stage = r.stage_s;
      worst = j;
    }
    plan.ranks.push_back(r);
  }
  Prediction& p = plan.predicted;
  p.token_latency_s = e.token_latency_s;
  p.decode_tokens_per_s = e.token_latency_s > 0 ? 1.0 / e.token_latency_s : 0;
  p.ttft_s = e.ttft_s;
  p.head_s = e.head_s;
  p.hops_s = e.hops_s;
  p.stages_s = 0;
  for (double s : e.stage_s)
    p.stages_s += s;
  // The largest single share of the token time.
  if (e.hops_s > worst_stage && e.hops_s > e.head_s) {
    p.bottleneck = fmt::format("network hops ({:.0f} % of the token time)",
                               100.0 * e.hops_s / e.token_latency_s);
  } else if (!plan.ranks.empty()) {
    const RankPlan& r = plan.ranks[worst];
    size_t host = a.order[worst];
    double compute = 0, memory = 0;
    for (int l = r.layer_start; l < r.layer_end; ++l) {
      const LayerInfo& layer = model.layers[static_cast<size_t>(l)];
      compute += layer.flops / cost.host(host).flops;
      memory += (static_cast<double>(layer.read_bytes) + layer.kv_bytes(cost.context())) /
                cost.host(host).bandwidth;
    }
    p.bottleneck = fmt::format("{} on {} (rank {}, {:.0f} % of the token time)",
                               memory >= compute ? "memory bandwidth" : "compute", r.host, r.rank,
                               100.0 * r.stage_s / e.token_latency_s);
  }
}

}  // namespace meshplan
