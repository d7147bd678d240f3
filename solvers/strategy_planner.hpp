// Entry point of `meshplan plan` for every strategy: request.strategy "pipeline" (make_plan),
// "tensor", "expert", or "auto", which evaluates each strategy the topology and the model allow,
// returns the fastest and lists the others in plan.alternatives with their predicted tokens/s or
// why they were not possible (not enough memory, no all-reduce path, head count not divisible,
// not an MoE model). Tensor and expert plans get the memory-proportional pipeline on the same
// hosts as their baseline.
#pragma once

#include "lib/catalog.hpp"
#include "lib/clock.hpp"
#include "lib/cluster.hpp"
#include "lib/model.hpp"
#include "lib/plan.hpp"
#include "solvers/planner.hpp"

namespace meshplan {

Plan plan_model(const Cluster& cluster, const Catalog& catalog, const ModelDesc& model,
                const PlanRequest& request, const Clock& clock);

}  // namespace meshplan
