// Stage layouts over shared boundaries for clusters of many hosts of several kinds (Helix's
// clusters: 24 to 42 GPUs of 3 to 7 types), where the exact stage program of routed_stages.hpp is
// too large and stages of one kind waste what is left of each kind. For a target flow F the
// layers are laid from the first: each next stage is the length and the set of unused hosts, of
// any kinds, that carries F through the most layers for the layer work the hosts give up (the
// measure of the upper bound, max_k k x min(t(k), F)), so long as the hosts left can still cover
// the layers left at F. A host counts at most what the links from the stage before carry into it:
// where slow links join regions, a stage crosses one only when it is wide enough to carry F. The
// largest F for which the sweep reaches the last layer (by bisection), measured by its max flow, is
// the layout; local moves over the shared boundaries then raise it.
#pragma once

#include <vector>

#include "lib/core/clock.hpp"
#include "solvers/routed/routed_bounds.hpp"
#include "solvers/routed/routed_flow.hpp"

namespace meshplan {

// The best layout the sweep finds for targets in [low, high]: by bisection, with lanes and
// without, then perturbed sweeps aiming above the best until `deadline` on `clock` (read once
// every 16 sweeps); flow 0 when none reaches the last layer.
// `groups`: interchangeable hosts (solvers/routed_stages.hpp).
Chains greedy_stage_layout(const RoutedInstance& instance,
                           const std::vector<std::vector<size_t>>& groups, double low, double high,
                           const Clock& clock, double deadline);

// Moves that keep boundaries shared: a host (used or not) takes the range between two of the
// layout's boundaries or leaves, and a boundary moves by one layer with every range that starts or
// ends there. The best move of each kind is taken while one raises the max flow, until `deadline`
// on `clock`. Returns the number of moves taken.
int improve_by_moves(const RoutedInstance& instance, Chains& layout, const Clock& clock,
                     double deadline);

}  // namespace meshplan
