#include "solvers/strategy_planner.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "lib/core/error.hpp"
#include "solvers/planning_problem.hpp"
#include "solvers/strategies.hpp"

namespace meshplan {
namespace {

constexpr const char* kPinReason = "--pin fixes layer ranges, which only a pipeline plan has";

struct Outcome {
  std::string strategy;
  std::optional<Plan> plan;
  std::string reason;
};

Alternative alternative(const Outcome& o, const Plan* chosen) {
  Alternative a;
  a.strategy = o.strategy;
  a.feasible = o.plan.has_value();
  if (o.plan) {
    a.token_latency_s = o.plan->predicted.token_latency_s;
    a.decode_tokens_per_s = o.plan->predicted.decode_tokens_per_s;
    a.backend = o.plan->backend;
    for (const auto& r : o.plan->ranks)
      a.hosts.push_back(r.host);
    if (chosen) {
      const double ratio = chosen->predicted.decode_tokens_per_s / a.decode_tokens_per_s;
      a.reason = ratio <= 1 + 1e-9 ? fmt::format("as fast as the {} plan", chosen->strategy)
                                   : fmt::format("{:.{}f}x slower than the {} plan", ratio,
                                                 ratio < 1.01 ? 3 : 2, chosen->strategy);
    }
  } else {
    a.reason = o.reason;
  }
  return a;
}

std::string strategy_names() {
  std::string names = "auto";
  const auto& table = strategies();
  for (size_t i = 0; i < table.size(); ++i)
    names += fmt::format("{}{}", i + 1 == table.size() ? " or " : ", ", table[i].name);
  return names;
}

}  // namespace

Plan plan_model(const Cluster& cluster, const Catalog& catalog, const ModelDesc& model,
                const PlanRequest& request, const Clock& clock) {
  const std::string& s = request.strategy;
  const Strategy* chosen = find_strategy(s);
  if (s != "auto" && !chosen) throw input_error("--strategy {}: expected {}", s, strategy_names());
  if (request.solver != "optimal" && request.solver != "proportional" &&
      request.solver != "proportional-v0" && request.solver != "ilp") {
    throw input_error("--solver {}: expected optimal, proportional, proportional-v0 or ilp",
                      request.solver);
  }
  if (request.solver == "ilp" && (s == "pipeline" || s == "tensor")) {
    throw input_error("--solver ilp places experts: use it with --strategy expert or auto");
  }
  if (chosen && !chosen->takes_pins && !request.pins.empty()) throw input_error("{}", kPinReason);

  // Built once: every strategy and every baseline plans over these figures.
  PlanningProblem problem(cluster, catalog, model, request);
  if (chosen) {
    StrategyOutcome o = chosen->plan(problem, clock);
    if (!o.plan) throw failure("{} parallel is not possible for {}: {}", s, model.name, o.reason);
    return std::move(*o.plan);
  }

  std::vector<Outcome> outcomes;
  for (const Strategy& strategy : strategies()) {
    Outcome o{std::string(strategy.name), std::nullopt, ""};
    if (!strategy.takes_pins && !request.pins.empty()) {
      o.reason = kPinReason;
    } else {
      try {
        StrategyOutcome r = strategy.plan(problem, clock);
        o.plan = std::move(r.plan);
        o.reason = std::move(r.reason);
      } catch (const Error& e) {
        if (e.kind() != ErrorKind::kFailed) throw;
        o.reason = e.what();
      }
    }
    outcomes.push_back(std::move(o));
  }
  const Outcome* fastest = nullptr;
  for (const auto& o : outcomes) {
    // Ties (on one host every strategy is the same plan) go to the earlier strategy.
    if (o.plan && (!fastest || o.plan->predicted.decode_tokens_per_s >
                                   fastest->plan->predicted.decode_tokens_per_s * (1 + 1e-9))) {
      fastest = &o;
    }
  }
  if (!fastest) {
    std::string why;
    for (const auto& o : outcomes)
      why += fmt::format("{}{}: {}", why.empty() ? "" : "; ", o.strategy, o.reason);
    throw failure("{} does not fit with any strategy: {}", model.name, why);
  }
  Plan plan = *fastest->plan;
  for (const auto& o : outcomes)
    if (&o != fastest) plan.alternatives.push_back(alternative(o, &plan));
  return plan;
}

}  // namespace meshplan
