// Expands the generator entries of hand-written cluster files (full-mesh, ring, chain, star,
// switch) into cables and networks, assigning each cable a real free Thunderbolt port of the
// machine model on both ends. A topology that needs more ports than a machine has is an error
// that names the host and the budget.
#pragma once

#include "lib/cluster/catalog.hpp"
#include "lib/cluster/cluster.hpp"

namespace meshplan {

// Expands cluster.generators (then clears them) and gives Thunderbolt cables written without
// ports the lowest free receptacle on each end.
void expand_generators(Cluster& cluster, const Catalog& catalog);

// The pairs (indices into `hosts`) a generator joins, in order.
std::vector<std::pair<size_t, size_t>> generator_pairs(const std::string& topology, size_t n,
                                                       size_t center);

}  // namespace meshplan
