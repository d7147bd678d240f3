#include "solvers/problem/left_out.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <set>

#include "lib/core/units.hpp"
#include "lib/plan/strategy_kind.hpp"

namespace meshplan {
namespace {

constexpr size_t kLeftOutNamed = 8;  // hosts named one by one for one reason
constexpr size_t kLeftOutFirst = 3;  // beyond: the first few named, the rest counted

// Whether host i has a link the backend can use to one of the plan's hosts (`in_plan`, by
// candidate index).
bool has_link_to_plan(const PlanningProblem& problem, size_t i,
                      const std::vector<size_t>& in_plan) {
  const LinkMatrix& links = problem.backend_links();
  return std::any_of(in_plan.begin(), in_plan.end(),
                     [&](size_t j) { return j != i && links[i][j].has_value(); });
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
  std::set<std::string> used;
  for (const RankPlan& r : plan.ranks)
    used.insert(r.host);
  std::vector<size_t> in_plan;
  for (size_t i = 0; i < problem.size(); ++i)
    if (used.count(problem.host(i).name)) in_plan.push_back(i);
  std::map<double, std::string> too_small;  // by usable bytes: a fleet has a few sizes of host
  for (size_t i = 0; i < problem.size(); ++i) {
    const HostFigures& h = problem.host(i);
    HostInfo info{h.name,       h.usable_bytes, h.bandwidth, h.flops,
                  h.overhead_s, h.usable_rule,  false,       "",
                  h.gpus,       h.tp,           h.gpu_link};
    info.used = used.count(h.name) > 0;
    if (!info.used) {
      if (h.usable_bytes < need) {
        auto [why, fresh] = too_small.try_emplace(h.usable_bytes);
        if (fresh)
          why->second =
              h.usable_bytes <= 0
                  ? "too small: no usable memory after the OS reserve"
                  : fmt::format(
                        "too small: {} usable, one {} needs {}", format_gib(h.usable_bytes),
                        is_strategy(plan.strategy, StrategyKind::kPipeline) ? "layer" : "rank",
                        format_gib(need));
        info.left_out = why->second;
      } else if (plan.ranks.size() > 1 && !has_link_to_plan(problem, i, in_plan)) {
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
  // Hosts left out for one reason are named one by one up to a few; beyond, the first few and how
  // many more (a fleet of one kind leaves out hundreds for the same reason).
  std::map<std::string, std::vector<std::string>> by_reason;
  for (const HostInfo& h : plan.hosts)
    if (!h.used && !h.left_out.empty()) by_reason[h.left_out].push_back(h.name);
  std::vector<std::string> parts;
  for (const HostInfo& h : plan.hosts) {
    if (h.used || h.left_out.empty()) continue;
    const std::vector<std::string>& alike = by_reason[h.left_out];
    if (alike.size() <= kLeftOutNamed) {
      parts.push_back(fmt::format("{} ({})", h.name, h.left_out));
    } else if (alike.front() == h.name) {
      const std::vector<std::string> first(alike.begin(), alike.begin() + kLeftOutFirst);
      parts.push_back(fmt::format("{} and {} more hosts ({})", fmt::join(first, ", "),
                                  alike.size() - kLeftOutFirst, h.left_out));
    }
  }
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
