#include "solvers/problem/left_out.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "lib/core/units.hpp"
#include "lib/plan/strategy_kind.hpp"

namespace meshplan {
namespace {

bool has_link_to_plan(const PlanningProblem& problem, size_t i, const Plan& plan) {
  const LinkMatrix& links = problem.backend_links();
  for (size_t j = 0; j < problem.size(); ++j) {
    if (j == i) continue;
    for (const RankPlan& r : plan.ranks)
      if (r.host == problem.host(j).name && links[i][j]) return true;
  }
  return false;
}

// The least memory one rank of this plan's kind needs: one layer (the smallest) for a pipeline,
// the smallest share for tensor and expert plans.
double smallest_need(const Plan& plan, const PlanningProblem& problem) {
  if (!is_strategy(plan.strategy, StrategyKind::kPipeline)) {
    double least = 0;
    for (const RankPlan& r : plan.ranks)
      if (least == 0 || r.total_bytes < least) least = r.total_bytes;
    return least;
  }
  const ModelDesc& m = problem.model();
  double least = 0;
  for (int l = 0; l < m.num_layers(); ++l) {
    double b = problem.pipeline_cost().stage_memory(l, l + 1, false);
    if (least == 0 || b < least) least = b;
  }
  return least;
}

}  // namespace

void record_left_out(Plan& plan, const PlanningProblem& problem, const std::string& constrained) {
  plan.hosts.clear();
  const double need = smallest_need(plan, problem);
  for (size_t i = 0; i < problem.size(); ++i) {
    const HostFigures& h = problem.host(i);
    HostInfo info{h.name,       h.usable_bytes, h.bandwidth, h.flops,
                  h.overhead_s, h.usable_rule,  false,       "",
                  h.gpus,       h.tp,           h.gpu_link};
    info.used = std::any_of(plan.ranks.begin(), plan.ranks.end(),
                            [&](const RankPlan& r) { return r.host == h.name; });
    if (!info.used) {
      if (h.usable_bytes < need) {
        info.left_out =
            h.usable_bytes <= 0
                ? "too small: no usable memory after the OS reserve"
                : fmt::format(
                      "too small: {} usable, one {} needs {}", format_gib(h.usable_bytes),
                      is_strategy(plan.strategy, StrategyKind::kPipeline) ? "layer" : "rank",
                      format_gib(need));
      } else if (plan.ranks.size() > 1 && !has_link_to_plan(problem, i, plan)) {
        info.left_out = fmt::format("no link the {} backend can use to the plan's hosts",
                                    problem.request().backend);
      } else if (!constrained.empty()) {
        info.left_out = fmt::format("not in the fastest plan within {}", constrained);
      } else {
        info.left_out = "using it would not make the plan faster";
      }
    }
    plan.hosts.push_back(std::move(info));
  }
  rewrite_left_out_note(plan);
}

void rewrite_left_out_note(Plan& plan) {
  std::vector<std::string> parts;
  for (const HostInfo& h : plan.hosts)
    if (!h.used && !h.left_out.empty()) parts.push_back(fmt::format("{} ({})", h.name, h.left_out));
  auto it = std::find_if(plan.notes.begin(), plan.notes.end(),
                         [](const std::string& n) { return n.starts_with("left out: "); });
  if (parts.empty()) {
    if (it != plan.notes.end()) plan.notes.erase(it);
    return;
  }
  std::string note = fmt::format("left out: {}", fmt::join(parts, "; "));
  if (it != plan.notes.end())
    *it = note;
  else
    plan.notes.push_back(note);
}

}  // namespace meshplan
