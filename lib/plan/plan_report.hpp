// The human-readable plan: a table of ranks, then the prediction, bound, baselines and solver.
#pragma once

#include <string>
#include <vector>

#include "lib/plan/plan.hpp"

namespace meshplan {

std::string render_plan(const Plan& plan);
std::string format_duration(double seconds);  // "46.9 ms", "1.23 s", "50 us"

}  // namespace meshplan
