// The human-readable plan: a table of ranks, then the prediction, bound, baselines and solver.
#pragma once

#include <string>
#include <vector>

#include "lib/plan/plan.hpp"

namespace meshplan {

std::string render_plan(const Plan& plan);

}  // namespace meshplan
