// An upper bound on a routed layout's flow from how whole hosts can cover the layers. At a flow F
// every layer is held by hosts whose capacities, each counted at most F, sum to F or more: a
// cover. A host holding k layers is in the covers of k layers, so a layer's cover uses 1/k of each
// of its hosts. F is possible only if covers for the first layer, the last layer and the L - 2
// between exist within the hosts there are: a linear program over covers (the configuration
// program of bin covering), solved by column generation whose pricing is a knapsack over each
// kind's ranges. Rounding each capacity up to a unit of F / 128 only admits more covers, and each
// answer "impossible" is proven by a dual solution, so the bound stays valid. It keeps what the
// layer work loses: a host below F fills no layer alone, and one host cannot be in two places.
#pragma once

#include "solvers/routed/routed_flow.hpp"

namespace meshplan {

// The largest flow in [0, high] the covers do not rule out (high when they allow it).
double layer_cover_bound(const RoutedInstance& instance, double high);

}  // namespace meshplan
