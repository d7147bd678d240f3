// One rank of a plan as the plan file writes it, in "ranks" and in each replica's "ranks": its
// host, layers and what its strategy adds (shares, experts, GPU stages), with its figures.
#pragma once

#include "lib/core/json_util.hpp"
#include "lib/plan/plan.hpp"

namespace meshplan {

ojson hop_json(const HopInfo& h);
ojson rank_json(const RankPlan& r);

}  // namespace meshplan
