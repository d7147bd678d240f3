// Seeded routed-serving instances built like Helix's clusters (Thesys-lab/Helix-ASPLOS25), for the
// benchmark and the tests: GPU nodes of several kinds, each kind's table (tokens/s holding k
// layers) shaped like Helix's profiled A100, L4, T4, V100 and multi-GPU tables (falling roughly as
// 1/k, with some entries above the one before: holding more layers is sometimes faster), as long
// as the kind's memory allows, up to 80 layers in all. Families differ in where the nodes sit:
// one region with fast links everywhere (Helix's clusters), or two to four regions whose links
// between them carry a fraction of what one node does.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "solvers/routed/routed_flow.hpp"

namespace meshplan {

const std::vector<std::string>& routed_family_names();

// `hosts` nodes (10 to 64 in the benchmark) over `layers` layers. Throws an input error naming
// the families for an unknown one.
RoutedInstance generate_routed_instance(const std::string& family, int hosts, int layers,
                                        uint64_t seed);

}  // namespace meshplan
