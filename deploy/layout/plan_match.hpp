// Checking a cluster for a plan: a plan is configured with the backend it was predicted for, on
// the hardware it was made for. `emit`, `dot` and `setup` given --plan check the plan's hosts in
// its rank order with the plan's backend, and refuse a cluster whose hosts (chip, memory, OS) or
// links differ from what the plan recorded; `check --plan` checks the same hosts and backend.
#pragma once

#include <optional>
#include <string>

#include "lib/plan/plan_file_reader.hpp"
#include "topologies/backend_rules.hpp"

namespace meshplan {

// The backend to configure: the plan's when there is one (an input error when --backend names
// another), else the requested one.
std::string backend_for_plan(const std::string& requested, const std::optional<PlanRanks>& plan);

// Throws a failure naming each difference between what the plan was made for and the cluster
// now (and an input error for a plan host the cluster lacks). Plans without a record pass.
void require_plan_matches(const TopologyContext& topology, const PlanRanks& plan);

// What to check for a plan: its backend (backend_for_plan) and its hosts in rank order, fixed for
// ring backends unless the plan is routed or a workload's; every host without a plan.
CheckOptions check_options_for(const std::string& requested_backend,
                               const std::optional<PlanRanks>& plan);

// The check for emit, dot and setup: with a plan, require_plan_matches, then the check of
// check_options_for; without, the requested backend over every host.
CheckReport check_plan_against_cluster(const TopologyContext& topology,
                                       const std::string& requested_backend,
                                       const std::optional<PlanRanks>& plan);

}  // namespace meshplan
