// A tighter upper bound on a routed layout's flow from per-layer cuts. The hosts holding a layer
// carry the whole flow F through it, each at most min(t(k), F) for its range of k layers, so their
// capacities sum to F or more. Rounded as a knapsack cover (Chvatal-Gomory, dividing by just under
// F / m for m = 1, 2, ...), each layer needs sum of floor(m min(t(k), F) / F) + 1 >= m + 1 over its
// hosts: a host below F counts for less than one whole layer's cover, however much of F it has.
// Summed over the layers and mixed with the layer work (flow x layers <= sum of k min(t(k), F)),
// each host then choosing its one best k, this gives a necessary condition for F at every mix;
// the largest F that meets all of them bounds the flow. On Helix's 10-node cluster it is the
// optimum (286.59 against 340.7 from layer work alone), on its 42-node one 6,282 against 6,529.
#pragma once

#include "solvers/routed/routed_flow.hpp"

namespace meshplan {

// The largest flow in [0, high] that meets every cut (high when it does).
double per_layer_cut_bound(const RoutedInstance& instance, double high);

}  // namespace meshplan
