#include "lib/plan/plan_report.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "lib/core/text_table.hpp"
#include "lib/core/units.hpp"
#include "lib/plan/engine_kind.hpp"
#include "lib/plan/plan_serving.hpp"
#include "lib/plan/strategy_kind.hpp"

namespace meshplan {

// "0-31, 40, 42-45".

namespace {

// Experts a rank holds per MoE layer, with runs of layers holding the same ones merged:
// "layers 3-60: experts 0-63".
std::vector<std::string> expert_lines(const RankPlan& r) {
  std::vector<std::string> out;
  for (size_t l = 0; l < r.experts.size();) {
    if (r.experts[l].empty()) {
      ++l;
      continue;
    }
    size_t m = l;
    while (m + 1 < r.experts.size() && r.experts[m + 1] == r.experts[l])
      ++m;
    out.push_back(fmt::format("{} {}: experts {}", l == m ? "layer" : "layers",
                              l == m ? std::to_string(l) : fmt::format("{}-{}", l, m),
                              format_ranges(r.experts[l])));
    l = m + 1;
  }
  return out;
}

std::string experts_held(const RankPlan& r) {
  size_t lo = 0, hi = 0;
  bool any = false;
  for (const auto& e : r.experts) {
    if (e.empty()) continue;
    lo = any ? std::min(lo, e.size()) : e.size();
    hi = any ? std::max(hi, e.size()) : e.size();
    any = true;
  }
  if (!any) return "-";
  return lo == hi ? fmt::format("{} per layer", lo) : fmt::format("{}-{} per layer", lo, hi);
}

// The chosen shape first when it serves prefill and decode on different hosts (the table below is
// then the plan over all the candidates it was compared with), then what the plan is.
std::string plan_headline(const Plan& plan) {
  std::string out;
  for (const ShapeInfo& s : plan.shapes)
    if (s.chosen && s.shape == "disaggregated")
      out += fmt::format(
          "{} served with prefill on {} and decode on {}: {:.2f} s a request of {} tokens (the "
          "Shape lines compare it); the plan over the hosts:\n",
          plan.model_name, fmt::join(s.prefill_hosts, ", "), fmt::join(s.decode_hosts, ", "),
          s.end_to_end_s, plan.output_tokens);
  // MLX's backend (ring, jaccl) is what mlx-lm and exo run on; other engines bring their own
  // transport, named by the engine.
  const auto engine = find_engine_kind(plan.engine);
  const std::string runs_on = engine && *engine != EngineKind::kMlxLm && *engine != EngineKind::kExo
                                  ? fmt::format("engine {}", name(*engine))
                                  : "backend " + plan.backend;
  out += fmt::format(
      "{} ({} layers, {}) as {} over {} host{}, {}, context {} tokens\n\n", plan.model_name,
      plan.num_layers, format_gib(static_cast<double>(plan.total_bytes)),
      is_strategy(plan.strategy, StrategyKind::kPipeline) ? "a pipeline"
      : is_strategy(plan.strategy, StrategyKind::kHybrid) ? "a pipeline of tensor-parallel groups"
                                                          : plan.strategy + " parallel",
      plan.ranks.size(), plan.ranks.size() == 1 ? "" : "s", runs_on, plan.context);
  return out;
}

// The rank table's third column: the experts, the share or the layers the rank holds.
std::string rank_holding(const RankPlan& r, bool expert, bool hybrid, bool tensor) {
  std::string what;
  if (expert)
    what = experts_held(r);
  else if (hybrid && r.share && r.layer_end > r.layer_start)
    what = fmt::format("{}-{} ({}) x {:.1f} %", r.layer_start, r.layer_end - 1,
                       r.layer_end - r.layer_start, *r.share * 100);
  else if (r.share)
    what = fmt::format("{:.1f} %", *r.share * 100);
  else if (r.layer_end > r.layer_start)
    what = fmt::format("{}-{} ({})", r.layer_start, r.layer_end - 1, r.layer_end - r.layer_start);
  else
    what = "-";
  if (r.holds_head && !tensor) what += " +head";
  return what;
}

std::string rank_table(const Plan& plan) {
  using A = TextTable::Align;
  const bool hybrid = is_strategy(plan.strategy, StrategyKind::kHybrid);
  bool tensor = !is_strategy(plan.strategy, StrategyKind::kPipeline) && !hybrid;
  const bool expert = is_strategy(plan.strategy, StrategyKind::kExpert);
  TextTable t({"rank", "host",
               expert   ? "experts"
               : tensor ? "share"
                        : "layers",
               "weights", "KV", "total", "usable", "stage", "next hop"},
              {A::kRight, A::kLeft, A::kLeft, A::kRight, A::kRight, A::kRight, A::kRight, A::kRight,
               A::kLeft});
  for (const auto& r : plan.ranks) {
    std::string hop = r.hop_to_next ? fmt::format("{} {}", r.hop_to_next->kind,
                                                  format_duration(r.hop_to_next->time_s))
                                    : "-";
    t.add_row({std::to_string(r.rank), r.host, rank_holding(r, expert, hybrid, tensor),
               format_gib(r.weight_bytes), format_gib(r.kv_bytes), format_gib(r.total_bytes),
               format_gib(r.usable_bytes), format_duration(r.stage_s), hop});
  }
  return t.render();
}

// The tensor-parallel groups of GPUs inside hosts of several, and which link their all-reduces
// were priced over; "" when no rank has any.
std::string gpu_stage_section(const Plan& plan) {
  std::string out;
  bool gpu_stages = false;
  for (const auto& r : plan.ranks) {
    for (const auto& g : r.gpu_stages) {
      if (!gpu_stages) out += "\nGPUs (tensor-parallel groups, one pipeline stage each):\n";
      gpu_stages = true;
      out += fmt::format("  rank {} {}-{} (tp {}): layers {}, {} per GPU of {} usable\n", r.rank,
                         g.devices.front(), g.devices.back().substr(r.host.size() + 1), r.tp,
                         g.layer_end > g.layer_start
                             ? fmt::format("{}-{}", g.layer_start, g.layer_end - 1)
                             : std::string("none"),
                         format_gib(g.bytes_per_gpu), format_gib(g.usable_per_gpu));
    }
  }
  for (const auto& h : plan.hosts)
    if (gpu_stages && h.used && h.tp > 1 && !h.gpu_link.empty())
      out += fmt::format("  {}: all-reduces over {}\n", h.name, h.gpu_link);
  return out;
}

// Hybrid: each group of hosts once, with what its all-reduces cost.
std::string host_group_section(const Plan& plan) {
  std::string out;
  bool groups = false;
  for (const RankPlan& r : plan.ranks) {
    if (r.tp_group.empty() || r.host != r.tp_group.front()) continue;
    if (!groups) out += "\nTensor-parallel groups of hosts (each one pipeline stage):\n";
    groups = true;
    out +=
        fmt::format("  {}: layers {}-{}, all-reduces {} per layer\n", fmt::join(r.tp_group, " + "),
                    r.layer_start, r.layer_end - 1, format_duration(r.gpu_collective_s));
  }
  return out;
}

std::string expert_section(const Plan& plan) {
  std::string out = "\nExperts held (routed experts per MoE layer):\n";
  for (const auto& r : plan.ranks)
    for (const auto& line : expert_lines(r))
      out += fmt::format("  rank {} {}: {}\n", r.rank, r.host, line);
  return out;
}

// The predicted pace and what a token's time is made of, the collective, bottleneck and bound.
std::string prediction_section(const Plan& plan) {
  std::string out;
  const bool hybrid = is_strategy(plan.strategy, StrategyKind::kHybrid);
  const bool expert = is_strategy(plan.strategy, StrategyKind::kExpert);
  const Prediction& p = plan.predicted;
  if (plan.routing) {
    // Routed serving predicts the flow; one stream's pace is that of the slowest chain it may take.
    out += fmt::format(
        "\nPredicted: {:.1f} tokens/s per stream on the slowest chain ({} per token), {} streams "
        "per host\n",
        p.decode_tokens_per_s, format_duration(p.token_latency_s), plan.routing->streams);
  } else {
    out += fmt::format(
        "\nPredicted: {:.1f} tokens/s decode ({} per token), TTFT {} for a {}-token prompt\n",
        p.decode_tokens_per_s, format_duration(p.token_latency_s), format_duration(p.ttft_s),
        plan.prompt);
  }
  if (plan.routing) {
  } else if (is_strategy(plan.strategy, StrategyKind::kPipeline) || hybrid) {
    out += fmt::format("Token time: stages {}{} + LM head {} + hops {}\n",
                       format_duration(p.stages_s), hybrid ? " (with the groups' all-reduces)" : "",
                       format_duration(p.head_s), format_duration(p.hops_s));
  } else {
    out += fmt::format("Token time: layers {} + LM head {} + {} {} + overhead {}\n",
                       format_duration(p.stages_s), format_duration(p.head_s),
                       expert ? "expert exchanges" : "all-reduces", format_duration(p.hops_s),
                       format_duration(plan.stage_overhead_s));
  }
  if (plan.collective) {
    const CollectiveInfo& c = *plan.collective;
    out += fmt::format(
        "Collective: {} over {} ({} latency, {:.2f} GB/s), {} per layer for {} layers\n", c.kind,
        c.link, format_duration(c.latency_s), c.bandwidth / 1e9, format_duration(c.per_layer_s),
        c.layers);
  }
  if (!p.bottleneck.empty()) out += fmt::format("Bottleneck: {}\n", p.bottleneck);
  if (plan.bound) {
    out += fmt::format("Lower bound: {} per token; this plan is within {:.1f} % of it\n",
                       format_duration(plan.bound->token_latency_s), plan.bound->gap_percent);
  }
  return out;
}

// The baselines and alternatives the plan was compared with, the solver and the notes.
std::string comparison_section(const Plan& plan) {
  std::string out;
  for (const auto& b : plan.baselines) {
    if (b.feasible) {
      out += fmt::format("Baseline {}: {:.1f} tokens/s on {} host{}; this plan is {:.2f}x\n",
                         b.solver, b.decode_tokens_per_s, b.hosts.size(),
                         b.hosts.size() == 1 ? "" : "s", b.speedup);
    } else {
      out += fmt::format("Baseline {}: not feasible ({})\n", b.solver, b.note);
    }
  }
  for (const auto& a : plan.alternatives) {
    if (a.feasible)
      out += fmt::format("Alternative {}: {:.1f} tokens/s{}\n", a.strategy, a.decode_tokens_per_s,
                         a.reason.empty() ? "" : " (" + a.reason + ")");
    else
      out += fmt::format("Alternative {}: not possible ({})\n", a.strategy, a.reason);
  }
  out +=
      fmt::format("Solver: {}{}, {:.2f} ms{}\n", plan.solver.name,
                  plan.solver.optimal ? " (proven optimal)" : " (not proven optimal)",
                  plan.solver.solve_ms, plan.solver.note.empty() ? "" : " - " + plan.solver.note);
  for (const auto& n : plan.notes)
    out += fmt::format("Note: {}\n", n);
  return out;
}

}  // namespace

std::string render_plan(const Plan& plan) {
  std::string out = plan_headline(plan);
  out += rank_table(plan);
  out += gpu_stage_section(plan);
  out += host_group_section(plan);
  if (is_strategy(plan.strategy, StrategyKind::kExpert)) out += expert_section(plan);
  out += prediction_section(plan);
  out += render_serving(plan);
  out += comparison_section(plan);
  return out;
}

}  // namespace meshplan
