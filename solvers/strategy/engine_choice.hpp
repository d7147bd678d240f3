// How `plan_model` picks among its strategies' plans for an engine: each strategy's outcome over
// the backends (Outcome), plans compared by the objective's score (Scorer), and the engine the plan
// is made for with the layouts it runs (choose_engine), from the engine table of
// lib/plan/engines.hpp. Internal to solvers/strategy_planner.cpp.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "lib/cluster/catalog.hpp"
#include "lib/cluster/cluster.hpp"
#include "lib/plan/engines.hpp"
#include "lib/plan/plan.hpp"
#include "solvers/problem/plan_request.hpp"
#include "solvers/problem/planning_problem.hpp"
#include "topologies/check_report.hpp"

namespace meshplan {

// A strategy planned over one route: the plan and whether `check` accepts it.
struct Attempt {
  std::string backend;
  std::optional<Plan> plan;
  std::string reason;               // why no plan, when none
  std::vector<CheckIssue> invalid;  // the check's errors for the plan's hosts, when rejected
};

// One strategy over every backend asked for: the fastest valid plan, the rejected ones.
struct Outcome {
  std::string strategy;
  std::optional<Plan> plan;
  std::string reason;
  std::vector<Attempt> attempts;
};

inline double tps(const Plan& p) {
  return p.predicted.decode_tokens_per_s;
}

// Plans compared by the objective's score when there is one (negative: cannot meet the request),
// else by one stream's tokens/s; each plan scored once.
struct Scorer {
  PlanScore score;
  mutable std::map<const Plan*, double> cache;
  double of(const Outcome& o) const;
};

// The best of `list`: by score where a score is given and any plan meets the request, else the
// fastest (so that the caller's own check names what is missing). Ties go to the earlier one.
const Outcome* best_of(const std::vector<const Outcome*>& list, const Scorer& scorer);
std::vector<const Outcome*> pointers(const std::vector<Outcome>& outcomes);

// The engine a plan is made for and the layouts it runs: one outcome per strategy, the pipeline
// being the engine's own split where it takes none.
struct EngineChoice {
  const Engine* engine = nullptr;
  std::string reason;
  const Outcome* outcome = nullptr;
  std::vector<const Outcome*> considered;
};

// The engine's own pipeline split, planned on demand (nullptr: the engine takes the plan's).
using OwnSplit = std::function<const Outcome*(const Engine&)>;

// --engine NAME, or the engine inferred from the candidates (lib/plan/engines.hpp infer_engine),
// and its best plan; no engine (outcome nullptr) for --engine any or when none runs a layout that
// fits. Input errors for an unknown engine or one that does not run on the hosts; a failure when
// the engine asked for runs nothing that fits.
EngineChoice choose_engine(const Cluster& cluster, const Catalog& catalog,
                           const PlanRequest& request, const PlanningProblem& problem,
                           const std::vector<Outcome>& outcomes, const OwnSplit& own_split,
                           const Scorer& scorer);

// The fastest layout of all, when an engine other than the plan's runs it faster: "the planned
// split is 1.18x faster ...; llama.cpp RPC runs it (--engine llama-rpc)". The figure is the
// engine's own (its cost per hop included), and no note when that is not faster.
void note_faster_elsewhere(Plan& plan, const EngineChoice& pick,
                           const std::vector<Outcome>& outcomes, const OwnSplit& own_split,
                           const Scorer& scorer, const Cluster& cluster, const Catalog& catalog);

}  // namespace meshplan
