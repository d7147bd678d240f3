// Routed instances for the routed solvers' tests: hosts from a name and a table, clusters of them
// on links that never bind, and every layout of every host scored by its max flow (the optimum,
// for instances small enough to try them all).
#pragma once

#include <string>
#include <vector>

#include "solvers/routed/routed_flow.hpp"

namespace meshplan::testing {

RoutedHost routed_host(std::string name, std::vector<double> table);

// The hosts, every pair linked at `link` tokens/s (far above any host: links that never bind).
RoutedInstance routed_cluster(int layers, std::vector<RoutedHost> hosts, double link = 1e9);

// The highest max flow of any layout: each host holds one range its memory allows, or none.
double routed_best_flow(const RoutedInstance& instance);

}  // namespace meshplan::testing
