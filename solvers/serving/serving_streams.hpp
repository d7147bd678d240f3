// How many streams a plan serves at once and what they get (SPEC section 7, "Serving"): the
// batched decode of solvers/problem/batched_decode.hpp applied to the request's objective,
// load and latency targets (solvers/serving/serving_load.hpp).
#pragma once

#include <string>

#include "lib/models/model.hpp"
#include "lib/plan/plan.hpp"
#include "solvers/problem/batched_decode.hpp"
#include "solvers/problem/plan_request.hpp"
#include "solvers/serving/serving_load.hpp"

namespace meshplan {

// The request's objective: "latency" (the default) or "throughput".
std::string serving_objective(const PlanRequest& request);

// The request's latency targets.
LatencyTargets latency_targets(const PlanRequest& request);

// A plan as one copy under a load: its decode steps and its prefill of the request's prompt.
// `decode` must outlive the curve.
CopyCurve copy_curve(const Plan& plan, const BatchedDecode& decode);

// The most requests one copy keeps in flight meeting the targets under the closed load, 0 when
// not even one does.
int most_in_flight(const CopyCurve& copy, const LatencyTargets& targets, int64_t output_tokens);

// Fills plan.serving with the plan as the one copy serving the request's load: the requests in
// flight (as given, arriving at --rate, one for the latency objective, or as many as serve the
// most tokens/s within the targets for the throughput objective), the figures each request sees,
// the KV of the streams, the most that fit and what binds. Throws a failure when the load does
// not fit or a target is missed, naming by how much.
void apply_serving(Plan& plan, const ModelDesc& model, const PlanRequest& request);

// For the throughput objective: a plan's aggregate tokens/s at its best number of streams (as
// apply_serving chooses it), negative when it cannot meet the request; strategies are compared by
// it instead of by one stream's speed. Empty for the latency objective.
PlanScore serving_score(const ModelDesc& model, const PlanRequest& request);

}  // namespace meshplan
