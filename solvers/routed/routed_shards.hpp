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

// The shards of `instance` unlike each other, each searched once (1 up to kRoutedShardHosts).
size_t routed_unlike_shards(const RoutedInstance& instance);

// The options each shard is searched with, among `unlike` shards unlike each other: an even share
// of the budget, and no covers' bound (the gap is the fleet's).
RoutedOptions routed_shard_options(const RoutedOptions& options, size_t unlike);

// solve_routed up to kRoutedShardHosts hosts; above, the shards' layouts side by side, the
// budget shared among the shards searched. The baselines (single pipeline, disjoint replicas)
// and the bound are the whole fleet's. `first_shard`: the first shard's solution, already
// searched with routed_shard_options (as a plan weighing its counts of streams on it has), or
// the whole instance's up to kRoutedShardHosts.
RoutedSolution solve_routed_fleet(const RoutedInstance& instance, const RoutedOptions& options = {},
                                  const RoutedSolution* first_shard = nullptr);

}  // namespace meshplan
