// The groups of hosts a tensor- or expert-parallel search considers: every subset of the
// candidates with --min-hosts to --max-hosts members when there are at most kExactPathHosts
// candidates; beyond, for each size, the first hosts of each given ordering (fastest first,
// largest first, ...).
#pragma once

#include <algorithm>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "solvers/problem/allreduce_paths.hpp"
#include "solvers/problem/plan_inputs.hpp"

namespace meshplan {

// Calls fn(group) with sorted candidate indices; returns true when the search was exhaustive.
template <typename Fn>
bool for_each_group(const PlanInputs& in, const std::vector<std::vector<size_t>>& orderings,
                    Fn&& fn) {
  const size_t n = in.size();
  if (n <= kExactPathHosts) {
    std::vector<size_t> group;
    for (uint64_t mask = 1; mask < (uint64_t{1} << n); ++mask) {
      const int count = __builtin_popcountll(mask);
      if (count < in.min_hosts || count > in.max_hosts) continue;
      group.clear();
      for (size_t i = 0; i < n; ++i)
        if (mask >> i & 1) group.push_back(i);
      fn(group);
    }
    return true;
  }
  std::set<std::vector<size_t>> seen;
  for (const auto& order : orderings) {
    for (int p = in.min_hosts; p <= in.max_hosts && p <= static_cast<int>(order.size()); ++p) {
      std::vector<size_t> group(order.begin(), order.begin() + p);
      std::sort(group.begin(), group.end());
      if (seen.insert(group).second) fn(group);
    }
  }
  return false;
}

// Why no group could run, for the message of an impossible strategy: the reason of the largest
// group without a collective, and the memory shortfall of the group with the most memory.
struct GroupRejections {
  std::string no_path;
  size_t no_path_size = 0;
  std::string memory;
  double memory_usable = -1;

  void no_collective(const std::vector<size_t>& group, const CollectivePaths& paths) {
    if (group.size() <= no_path_size) return;
    no_path_size = group.size();
    no_path = paths.why_none(group);
  }
  void short_of_memory(const PlanInputs& in, const std::vector<size_t>& group, std::string why) {
    double usable = 0;
    for (size_t g : group)
      usable += in.hosts[g].usable_bytes;
    if (usable <= memory_usable) return;
    memory_usable = usable;
    memory = std::move(why);
  }
};

// The collective option with the lowest time per exchange.
template <typename TimeOf>
const CollectivePath& fastest_path(const std::vector<CollectivePath>& options, TimeOf time_of) {
  const CollectivePath* best = &options.front();
  for (const auto& o : options)
    if (time_of(o) < time_of(*best)) best = &o;
  return *best;
}

// Orderings used beyond the exhaustive size: fastest (memory bandwidth) first, largest first.
inline std::vector<std::vector<size_t>> group_seed_orders(const PlanInputs& in) {
  std::vector<size_t> fastest(in.size()), largest(in.size());
  for (size_t i = 0; i < in.size(); ++i)
    fastest[i] = largest[i] = i;
  std::stable_sort(fastest.begin(), fastest.end(), [&](size_t a, size_t b) {
    return in.hosts[a].bandwidth > in.hosts[b].bandwidth;
  });
  std::stable_sort(largest.begin(), largest.end(), [&](size_t a, size_t b) {
    return in.hosts[a].usable_bytes > in.hosts[b].usable_bytes;
  });
  return {fastest, largest};
}

}  // namespace meshplan
