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

// The instance with each host's table cut to what its links can carry, for the bounds. A host
// holding fewer than all layers takes its tokens in over links (unless it holds the first layer)
// and passes them on over links (unless it holds the last), so it carries at most the sum of its
// links out where it may hold the first layer, of its links in where it may hold the last (the
// LM head's time added back), and the lesser of the two between; each link counted at most what
// the host at its other end carries holding fewer than all layers. Holding every layer needs no
// link. Where regions join over slow links, this is what a host alone in its region can use.
RoutedInstance link_capped(const RoutedInstance& instance);

}  // namespace meshplan
