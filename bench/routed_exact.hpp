// The routed layout of the highest flow, solved exactly as one mixed-integer program (GLPK), for
// small instances: the yardstick that splits the routed search's gap to its upper bound into the
// part the bound leaves (bound - optimum) and the part the search leaves (optimum - found).
// Written from the problem's statement, not from the search: each host picks one range or none
// (binary columns), a host carries at most its range's capacity, and flow passes from host i to
// host j at layer boundary b only when i's range ends at b and j's starts there, at most the
// link's tokens/s.
#pragma once

#include "solvers/routed/routed_flow.hpp"

namespace meshplan {

struct RoutedExact {
  double tokens_per_s = 0;  // the best flow found
  double bound = 0;         // the program's own bound (its LP relaxation at the root, or better)
  bool optimal = false;     // the program finished: tokens_per_s is the optimum
  RoutedLayout layout;
};

// Stops after `node_limit` branch-and-bound nodes; `optimal` says whether it finished. With
// `node_limit` 0, only the relaxation is solved: `bound` alone is set.
RoutedExact solve_routed_exactly(const RoutedInstance& instance, int node_limit = 200000);

}  // namespace meshplan
