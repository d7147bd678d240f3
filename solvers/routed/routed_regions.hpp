// Regions for routed serving: hosts joined by links that never bind (each link carries at least
// what either end does at its fastest) form one region. Where slow links join several regions, the
// stage layouts (solvers/routed_greedy.hpp, solvers/routed_stage_program.hpp) of the whole cluster
// put stages across them and the slow links cap the flow; each region serving on its own, side by
// side, often carries more. That layout is one of the routed search's starting layouts.
#pragma once

#include <vector>

#include "lib/core/clock.hpp"
#include "solvers/routed/routed_bounds.hpp"
#include "solvers/routed/routed_flow.hpp"

namespace meshplan {

// The regions, as host indices in instance order.
std::vector<std::vector<size_t>> routed_regions(const RoutedInstance& instance);

// Each region's best of its single pipeline, sweep and stage program, side by side, measured on
// the whole cluster; flow 0 when there is one region. Stops at `deadline` on `clock`.
Chains regional_layout(const RoutedInstance& instance, const Clock& clock, double deadline);

}  // namespace meshplan
