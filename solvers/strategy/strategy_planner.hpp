// Entry point of `meshplan plan`: builds the one PlanningProblem of the call and runs the
// requested strategy of solvers/strategies.hpp, or, for "auto", every strategy the topology and
// the model allow, returning the fastest and listing the others in plan.alternatives with their
// predicted tokens/s or why they were not possible (not enough memory, no all-reduce path, head
// count not divisible, not an MoE model).
#pragma once

#include "lib/cluster/catalog.hpp"
#include "lib/cluster/cluster.hpp"
#include "lib/core/clock.hpp"
#include "lib/models/model.hpp"
#include "lib/plan/plan.hpp"
#include "solvers/problem/plan_request.hpp"
#include "topologies/topology_context.hpp"

namespace meshplan {

Plan plan_model(const Cluster& cluster, const Catalog& catalog, const ModelDesc& model,
                const PlanRequest& request, const Clock& clock, const PlanScore& score = {});

// The same over a cluster's topology built once (`topology.cluster` is the cluster planned): a
// fleet's replica groups are each planned over it, where building it anew for every group would
// read every host and cable of the fleet each time.
Plan plan_model(const TopologyContext& topology, const ModelDesc& model, const PlanRequest& request,
                const Clock& clock, const PlanScore& score = {});

}  // namespace meshplan
