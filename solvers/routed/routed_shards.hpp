// Routed layouts for fleets: hundreds to thousands of hosts searched as shards of a few dozen.
// The hosts, in the search's canonical order (kinds together), are dealt to the shards in turn,
// so shards hold the kinds in the fleet's proportions; shards alike (hosts of the same kinds in
// the same order, the same links among them) are searched once and the layout copied. The
// shards' layouts side by side are measured on the whole fleet: its max flow is at least the
// sum of theirs (their flows together are one flow of the fleet's network), and the upper bound
// is the fleet's own, so the gap reported is the fleet's.
#pragma once

#include <cstddef>
#include <vector>

#include "solvers/routed/routed_search.hpp"

namespace meshplan {

// Above this many hosts the layout is searched in shards of at most kRoutedShardSize.
inline constexpr size_t kRoutedShardHosts = 128;
inline constexpr size_t kRoutedShardSize = 64;

// The shards of a fleet (host indices, canonical order), or one shard of every host up to
// kRoutedShardHosts.
std::vector<std::vector<size_t>> routed_shards(const RoutedInstance& instance);

// solve_routed up to kRoutedShardHosts hosts; above, the shards' layouts side by side, the
// budget shared among the shards searched. The baselines (single pipeline, disjoint replicas)
// and the bound are the whole fleet's.
RoutedSolution solve_routed_fleet(const RoutedInstance& instance,
                                  const RoutedOptions& options = {});

}  // namespace meshplan
