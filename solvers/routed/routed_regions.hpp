// Regions for routed serving: hosts joined by links that never bind (each link carries at least
// what either end does at its fastest) form one region. Where slow links join several regions, the
// regions serve side by side or in series (routed_chains.hpp).
#pragma once

#include <vector>

#include "solvers/routed/routed_flow.hpp"

namespace meshplan {

// The regions, as host indices in instance order.
std::vector<std::vector<size_t>> routed_regions(const RoutedInstance& instance);

}  // namespace meshplan
