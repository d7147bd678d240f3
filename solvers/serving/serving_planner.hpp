// Serving more than one stream (SPEC section 7, "Serving"): a plan of any strategy given N
// streams (--concurrency) or the objective (--objective latency|throughput, --min-stream-tps),
// replicas (groups of hosts that each hold a copy, each planned with the existing strategies)
// and prefill on one host with decode on another compared with the plain shapes by end-to-end
// time per request (it wins for long prompts, 8192 tokens and more, on a compute-rich prefill
// host). Every serving plan keeps its bound and baselines for the objective.
#pragma once

#include <string>
#include <vector>

#include "lib/cluster/catalog.hpp"
#include "lib/cluster/cluster.hpp"
#include "lib/core/clock.hpp"
#include "lib/models/model.hpp"
#include "lib/plan/plan.hpp"
#include "solvers/problem/plan_request.hpp"
#include "solvers/routed/routed_plan.hpp"
#include "solvers/serving/serving_streams.hpp"
#include "solvers/strategy/strategy_planner.hpp"

namespace meshplan {

// Prompts from this length on also consider disaggregated prefill and decode (issue 16: for
// prompt-heavy work); below it the handoff of a request between two engines is not worth its
// setup, which the cost model does not price.
inline constexpr int64_t kDisaggregationPrompt = 8192;

// The serving plan: the strategies' plan over all candidates, or replicas of it over groups of
// hosts when that serves more (throughput objective), with the shapes compared. The throughput
// objective with --strategy auto also plans routed serving and keeps it when it serves more;
// --strategy routed plans only that.
Plan plan_serving(const Cluster& cluster, const Catalog& catalog, const ModelDesc& model,
                  const PlanRequest& request, const Clock& clock, const RoutedRequest& routed = {});

// End-to-end time per request of each shape: every single host that holds the model, the plan
// over all candidates, and prefill on host P with decode on host D, the KV cache streamed over
// their link layer by layer while P still computes. The fastest is marked chosen.
std::vector<ShapeInfo> compare_shapes(const Cluster& cluster, const Catalog& catalog,
                                      const ModelDesc& model, const PlanRequest& request,
                                      const Plan& whole, const Clock& clock);

}  // namespace meshplan
