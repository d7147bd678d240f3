// The pipeline strategy: the candidate hosts' cost model from the planning problem, the requested
// solver (optimal, proportional, proportional-v0), the lower bound and the baselines (the
// memory-proportional split and the best single host). Infeasible requests are failures (exit 1)
// that name the shortfall and what would fix it.
#pragma once

#include <vector>

#include "lib/cluster/catalog.hpp"
#include "lib/cluster/cluster.hpp"
#include "lib/core/clock.hpp"
#include "lib/models/model.hpp"
#include "lib/plan/plan.hpp"
#include "solvers/problem/plan_inputs.hpp"
#include "solvers/problem/plan_request.hpp"

namespace meshplan {

class PlanningProblem;

// Throws a failure when no pipeline fits.
StrategyOutcome plan_pipeline(const PlanningProblem& problem, const Clock& clock);

// The pipeline baselines over `members` (candidate indices, a plan's hosts in rank order) with
// their speed-up over a plan of `plan_latency_s`: the memory-proportional split and the best
// single host, or one entry saying why no pipeline on those hosts fits.
std::vector<BaselineInfo> pipeline_baselines(const PlanningProblem& problem,
                                             const std::vector<size_t>& members,
                                             double plan_latency_s);

// A pipeline plan straight from a cluster (the benchmark runner's entry).
Plan make_plan(const Cluster& cluster, const Catalog& catalog, const ModelDesc& model,
               const PlanRequest& request, const Clock& clock);

}  // namespace meshplan
