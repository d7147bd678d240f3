#include "lib/plan_report.hpp"

#include <fmt/format.h>

#include "lib/text_table.hpp"
#include "lib/units.hpp"

namespace meshplan {

std::string format_duration(double s) {
  if (s >= 1.0) return fmt::format("{:.2f} s", s);
  if (s >= 1e-3) return fmt::format("{:.2f} ms", s * 1e3);
  return fmt::format("{:.0f} us", s * 1e6);
}

std::string render_plan(const Plan& plan) {
  std::string out;
  out += fmt::format("{} ({} layers, {}) as a {} over {} host{}, backend {}, context {} tokens\n\n", plan.model_name,
                     plan.num_layers, format_gib(static_cast<double>(plan.total_bytes)), plan.strategy, plan.ranks.size(),
                     plan.ranks.size() == 1 ? "" : "s", plan.backend, plan.context);
  using A = TextTable::Align;
  bool tensor = plan.strategy != "pipeline";
  TextTable t({"rank", "host", tensor ? "share" : "layers", "weights", "KV", "total", "usable", "stage", "next hop"},
              {A::kRight, A::kLeft, A::kLeft, A::kRight, A::kRight, A::kRight, A::kRight, A::kRight, A::kLeft});
  for (const auto& r : plan.ranks) {
    std::string what;
    if (r.share) what = fmt::format("{:.1f} %", *r.share * 100);
    else if (r.layer_end > r.layer_start) what = fmt::format("{}-{} ({})", r.layer_start, r.layer_end - 1, r.layer_end - r.layer_start);
    else what = "-";
    if (r.holds_head && !tensor) what += " +head";
    std::string hop = r.hop_to_next ? fmt::format("{} {}", r.hop_to_next->kind, format_duration(r.hop_to_next->time_s)) : "-";
    t.add_row({std::to_string(r.rank), r.host, what, format_gib(r.weight_bytes), format_gib(r.kv_bytes),
               format_gib(r.total_bytes), format_gib(r.usable_bytes), format_duration(r.stage_s), hop});
  }
  out += t.render();
  const Prediction& p = plan.predicted;
  out += fmt::format("\nPredicted: {:.1f} tokens/s decode ({} per token), TTFT {} for a {}-token prompt\n",
                     p.decode_tokens_per_s, format_duration(p.token_latency_s), format_duration(p.ttft_s), plan.prompt);
  out += fmt::format("Token time: stages {} + LM head {} + hops {}\n", format_duration(p.stages_s),
                     format_duration(p.head_s), format_duration(p.hops_s));
  if (!p.bottleneck.empty()) out += fmt::format("Bottleneck: {}\n", p.bottleneck);
  if (plan.bound) {
    out += fmt::format("Lower bound: {} per token; this plan is within {:.1f} % of it\n",
                       format_duration(plan.bound->token_latency_s), plan.bound->gap_percent);
  }
  for (const auto& b : plan.baselines) {
    if (b.feasible) {
      out += fmt::format("Baseline {}: {:.1f} tokens/s on {} host{}; this plan is {:.2f}x\n", b.solver,
                         b.decode_tokens_per_s, b.hosts.size(), b.hosts.size() == 1 ? "" : "s", b.speedup);
    } else {
      out += fmt::format("Baseline {}: not feasible ({})\n", b.solver, b.note);
    }
  }
  for (const auto& a : plan.alternatives) {
    if (a.feasible) out += fmt::format("Alternative {}: {:.1f} tokens/s{}\n", a.strategy, a.decode_tokens_per_s,
                                       a.reason.empty() ? "" : " (" + a.reason + ")");
    else out += fmt::format("Alternative {}: not possible ({})\n", a.strategy, a.reason);
  }
  out += fmt::format("Solver: {}{}, {:.2f} ms{}\n", plan.solver.name,
                     plan.solver.optimal ? " (proven optimal)" : " (not proven optimal)", plan.solver.solve_ms,
                     plan.solver.note.empty() ? "" : " - " + plan.solver.note);
  for (const auto& n : plan.notes) out += fmt::format("Note: {}\n", n);
  return out;
}

}  // namespace meshplan
