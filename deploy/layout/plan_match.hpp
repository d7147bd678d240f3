// A plan is configured with the backend it was predicted for, on the hardware it was made for:
// `emit`, `dot` and `setup` given --plan use the plan's backend and refuse a cluster whose hosts
// (chip, memory, OS) or links differ from what the plan recorded.
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

}  // namespace meshplan
