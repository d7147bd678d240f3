// The serving frontier as an SVG chart a browser opens (`plan --frontier-svg FILE`): per shape,
// tokens/s in all against tokens/s each stream gets as the load grows, a line through its points
// labelled with their requests in flight; points that miss the targets hollow, the plan's own
// point ringed.
#pragma once

#include <string>

#include "lib/plan/plan.hpp"

namespace meshplan {

std::string frontier_svg(const Frontier& frontier, const std::string& title);

}  // namespace meshplan
