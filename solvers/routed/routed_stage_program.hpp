// Stage layouts of many hosts of several kinds as an integer program (GLPK). On a switch the order
// of stages does not change their flow, so a stage layout at a target flow F is a multiset of
// stages: a length l and how many hosts of each kind hold it, their capacities for l layers
// summing to F or more. The program takes as many of each such stage (only those that lose a
// host's worth below F when any host leaves) as the kinds' host counts allow, to reach exactly
// the layer count. Whether it can is monotone in F, so bisection on F finds the best stage layout
// of this form, where the sweep of routed_greedy.hpp only finds a good one. The ends (embedding,
// LM head) are priced as middle ranges; the layout is then measured by its max flow.
#pragma once

#include <vector>

#include "lib/core/clock.hpp"
#include "solvers/routed/routed_bounds.hpp"
#include "solvers/routed/routed_flow.hpp"

namespace meshplan {

// The best layout found for targets in (low, high], flow 0 when none is above `low` by the
// deadline. Each program is cut short at what is left of the deadline; a program cut short
// without a layout counts as unreachable.
Chains program_stage_layout(const RoutedInstance& instance,
                            const std::vector<std::vector<size_t>>& groups, double low, double high,
                            const Clock& clock, double deadline);

}  // namespace meshplan
