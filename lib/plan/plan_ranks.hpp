// The part of a plan file (meshplan.plan/1) that configuration needs: which host is which rank
// and its layer range [start, end). Read through DocNode so that errors name the position.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "lib/core/document.hpp"

namespace meshplan {

struct PlanRank {
  int rank = 0;
  std::string host;
  std::optional<std::pair<int, int>> layers;  // [start, end)
};

struct PlanRanks {
  std::string backend;          // the plan's backend, "" when absent
  std::vector<PlanRank> ranks;  // in rank order
  std::vector<std::string> hosts() const;
};

// Other keys of the plan are left alone (they belong to the planner).
PlanRanks read_plan_ranks(const DocNode& root);

}  // namespace meshplan
