// Regions side by side and in series, for clusters of a few regions joined by slow links. Each set
// of regions is tried as a chain: its regions' hosts hold the layers region after region (every
// order of them), each hand-over wide enough on both sides for the flow over the slow links
// (routed_sweep.hpp); a chain of one region is that region serving alone. The regions are then
// cut into chains in the best way, the chains serving side by side. With one region: nothing.
#pragma once

#include "lib/core/clock.hpp"
#include "solvers/routed/routed_bounds.hpp"
#include "solvers/routed/routed_flow.hpp"

namespace meshplan {

// The most regions whose chains are all tried (more: each region alone, side by side).
inline constexpr size_t kMostChainedRegions = 4;

// The best layout of chains side by side, measured on the whole cluster; flow 0 when there is one
// region. Stops trying chains at `deadline` on `clock`.
Chains region_chains_layout(const RoutedInstance& instance, const Clock& clock, double deadline);

}  // namespace meshplan
