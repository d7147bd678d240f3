// The plans every report compares against: the memory-proportional split that exo and llama.cpp
// ship (over all candidate hosts in the given order), and the best single host.
#pragma once

#include <optional>
#include <vector>

#include "lib/plan/plan.hpp"
#include "solvers/problem/pipeline_cost.hpp"

namespace meshplan {

struct BaselineResult {
  BaselineInfo info;                             // speedup left at 0: the caller knows the plan
  std::optional<PipelineAssignment> assignment;  // when feasible
};

// exo 1.0's split over `order`; infeasible (with the reason in info.note) when a host's share
// does not fit, a neighbour pair has no link, or there are more hosts than layers.
BaselineResult proportional_baseline(const PipelineCostModel& cost,
                                     const std::vector<size_t>& order);

// The fastest single host that holds the whole model; infeasible when none does.
BaselineResult single_host_baseline(const PipelineCostModel& cost);

// Sets info.speedup = baseline latency / plan latency for feasible baselines.
void set_speedup(BaselineInfo& info, double plan_latency_s);

}  // namespace meshplan
