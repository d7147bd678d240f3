// A host's throughput table as the bounds and searches read it: what holding k layers gives, the
// whole-model entry paying the embedding and LM head.
#pragma once

#include <vector>

#include "solvers/routed/routed_flow.hpp"

namespace meshplan {

// Tokens/s t through a host that also computes the head (the head's time added per token).
double with_head(const RoutedHost& host, double t);

// A host's table as the bounds see it: at most `layers` entries, and holding every layer means
// holding the embedding and LM head too, so that entry pays the head and the memory beside both.
std::vector<double> bound_table(const RoutedHost& host, int layers);

}  // namespace meshplan
