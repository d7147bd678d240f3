// The groups of single-device hosts a hybrid plan considers: hosts that can all-reduce together
// under the backend, in a number that divides the model's heads, each group planned as one host
// of their combined pace; and every way of splitting the candidates into such groups.
#pragma once

#include <string>
#include <vector>

#include "solvers/parallel/tensor_parallel.hpp"
#include "solvers/problem/allreduce_paths.hpp"
#include "solvers/problem/planning_problem.hpp"

namespace meshplan {

// Hosts that all-reduce together, in their collective's rank order.
struct HostGroup {
  std::vector<size_t> members;  // candidate indices
  CollectivePath path;
};

// One way of grouping the candidates: groups of several hosts, and the hosts left single.
struct HostGrouping {
  std::vector<HostGroup> groups;
  std::vector<size_t> singles;
};

// A group planned as one host: every host holds an equal share of each layer, so the group runs
// at its slowest host's pace with all of their bandwidth; each holds the embedding and head whole
// (`replicated` bytes) and computes the head at its own pace. Its two all-reduces per layer take
// the in-host form: a JACCL mesh pays 2 latencies per all-reduce, a ring 2(p-1) steps.
HostFigures group_figures(const PlanningProblem& problem, const HostGroup& g, double replicated);

// Every grouping of `eligible` with at least one group, larger groups first (the most promising
// first, so that a capped list keeps the likely ones), up to `max_groupings`; `capped` tells
// whether the cap cut the list short. Of groupings that differ only by swapping interchangeable
// hosts (candidate_classes) one is listed: 12 identical hosts give a handful, not thousands.
std::vector<HostGrouping> host_groupings(const PlanningProblem& problem,
                                         const TensorCostModel& cost,
                                         const std::vector<size_t>& eligible, size_t max_groupings,
                                         bool& capped);

}  // namespace meshplan
