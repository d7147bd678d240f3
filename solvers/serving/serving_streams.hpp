// How many streams a plan serves at once and what they get (SPEC section 7, "Serving"): the
// batched decode of solvers/problem/batched_decode.hpp applied to the request's objective,
// concurrency and per-stream minimum.
#pragma once

#include <string>

#include "lib/models/model.hpp"
#include "lib/plan/plan.hpp"
#include "solvers/problem/plan_request.hpp"

namespace meshplan {

// The request's objective: "latency" (the default) or "throughput".
std::string serving_objective(const PlanRequest& request);

// Fills plan.serving for the request's objective and concurrency: the streams per replica, the
// per-stream and aggregate tokens/s, the KV of the streams, the largest N that fits and what
// binds. Throws a failure when --concurrency does not fit or no N meets --min-stream-tps.
void apply_serving(Plan& plan, const ModelDesc& model, const PlanRequest& request);

// For the throughput objective: a plan's aggregate tokens/s at its best number of streams (as
// apply_serving chooses it), negative when it cannot meet the request; strategies are compared by
// it instead of by one stream's speed. Empty for the latency objective.
PlanScore serving_score(const ModelDesc& model, const PlanRequest& request);

}  // namespace meshplan
