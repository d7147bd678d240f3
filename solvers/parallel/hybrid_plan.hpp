// Hybrid plans: tensor parallel inside groups of hosts, a pipeline between the groups (and single
// hosts). A group is hosts that can all-reduce under the backend (a JACCL mesh of TB5 RDMA cables,
// a ring), of a size that divides the model's heads; it splits each of its layers equally over
// its hosts, so it runs at its slowest host's pace with every host's bandwidth, pays two
// all-reduces per layer over its collective, and each of its hosts holds its share of the layers
// and KV plus the embedding and head when the group holds them.
//
// Every way of grouping the candidates (up to kMaxGroupings, larger groups first) is planned as a
// pipeline over the groups with the exact pipeline solver; the fastest plan that uses a group is
// kept, and the bound is the least of every grouping's bound.
#pragma once

#include "lib/core/clock.hpp"
#include "solvers/problem/plan_inputs.hpp"
#include "solvers/problem/planning_problem.hpp"

namespace meshplan {

constexpr size_t kMaxGroupings = 128;
constexpr size_t kMaxHybridHosts = 12;  // single-device candidates the groupings range over

StrategyOutcome plan_hybrid(const PlanningProblem& problem, const Clock& clock);

}  // namespace meshplan
