// The serving frontier (`plan --frontier`, docs/serving.md): for every shape the plan's engine
// runs on the candidates (one copy by each strategy, and at each tensor degree inside hosts of
// several GPUs; one copy on each host alone; replicas sharing the load; prefill on one host with
// decode on another where the prompt is long enough), aggregate and per-stream tokens/s as the
// requests in flight grow from 1, each point checked against the request's targets.
#pragma once

#include "lib/cluster/catalog.hpp"
#include "lib/cluster/cluster.hpp"
#include "lib/core/clock.hpp"
#include "lib/models/model.hpp"
#include "lib/plan/plan.hpp"
#include "solvers/problem/plan_request.hpp"

namespace meshplan {

// Loads 1, 2, 4, ... up to `top`, with `also` among them.
std::vector<int> frontier_loads(int top, int also);

// The frontier around `chosen`, the serving plan made for `request` (its shape and point marked).
Frontier serving_frontier(const Cluster& cluster, const Catalog& catalog, const ModelDesc& model,
                          const PlanRequest& request, const Plan& chosen, const Clock& clock);

}  // namespace meshplan
