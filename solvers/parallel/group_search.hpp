// The groups of hosts a tensor- or expert-parallel search considers: every subset of the
// candidates with --min-hosts to --max-hosts members when there are at most kExactPathHosts
// candidates; beyond, for each size, the first hosts of each given ordering (fastest first,
// largest first, ...).
#pragma once

#include <algorithm>
#include <climits>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "solvers/problem/allreduce_paths.hpp"
#include "solvers/problem/plan_inputs.hpp"

namespace meshplan {

// For each ordering and size p, whether its first p hosts are the first p of an earlier ordering
// (as sets): kept as how many hosts each pair's prefixes differ by, in memory linear in n.
inline std::vector<std::vector<bool>> repeated_prefixes(
    const std::vector<std::vector<size_t>>& orderings, size_t n) {
  const size_t k = orderings.size();
  std::vector<std::vector<bool>> repeated(k), in(k, std::vector<bool>(n, false));
  std::vector<size_t> differ(k * k, 0);  // [j * k + l]: |prefix_j symmetric-difference prefix_l|
  for (size_t l = 0; l < k; ++l)
    repeated[l].assign(orderings[l].size() + 1, false);
  for (size_t p = 1; p <= n; ++p) {
    for (size_t l = 0; l < k; ++l) {
      if (p > orderings[l].size()) continue;
      const size_t h = orderings[l][p - 1];
      in[l][h] = true;
      for (size_t j = 0; j < k; ++j) {
        if (j == l || p > orderings[j].size()) continue;
        // h joins l's prefix: the pair's difference shrinks when j's prefix holds it already.
        size_t& d = differ[std::min(j, l) * k + std::max(j, l)];
        d = in[j][h] ? d - 1 : d + 1;
      }
    }
    for (size_t l = 0; l < k; ++l)
      for (size_t j = 0; j < l && p <= orderings[l].size(); ++j)
        if (p <= orderings[j].size() && differ[j * k + l] == 0) repeated[l][p] = true;
  }
  return repeated;
}

struct AnyGroupSize {
  bool operator()(size_t) const { return true; }
};

// Calls fn(group) with sorted candidate indices, for groups of `from` to `to` hosts within
// --min-hosts and --max-hosts, of the sizes `wanted` accepts (the others are not even formed: 16
// hosts have 65,536 groups); returns true when the search was exhaustive.
template <typename Fn, typename Wanted = AnyGroupSize>
bool for_each_group(const PlanInputs& in, const std::vector<std::vector<size_t>>& orderings,
                    Fn&& fn, int from = 1, int to = INT_MAX, Wanted wanted = {}) {
  const size_t n = in.size();
  const int lo = std::max(in.min_hosts, from), hi = std::min(in.max_hosts, to);
  if (n <= kExactPathHosts) {
    std::vector<size_t> group;
    for (uint64_t mask = 1; mask < (uint64_t{1} << n); ++mask) {
      const int count = __builtin_popcountll(mask);
      if (count < lo || count > hi || !wanted(static_cast<size_t>(count))) continue;
      group.clear();
      for (uint64_t rest = mask; rest; rest &= rest - 1)
        group.push_back(static_cast<size_t>(__builtin_ctzll(rest)));
      fn(group);
    }
    return true;
  }
  const std::vector<std::vector<bool>> repeated = repeated_prefixes(orderings, n);
  for (size_t k = 0; k < orderings.size(); ++k) {
    const std::vector<size_t>& order = orderings[k];
    std::vector<size_t> group;  // the first p of `order`, sorted, grown one host at a time
    for (int p = 1; p <= hi && p <= static_cast<int>(order.size()); ++p) {
      group.insert(std::upper_bound(group.begin(), group.end(), order[p - 1]), order[p - 1]);
      if (p >= lo && !repeated[k][p] && wanted(static_cast<size_t>(p))) fn(group);
    }
  }
  return false;
}

// Why no group could run, for the message of an impossible strategy: the reason of the largest
// group without a collective, and the memory shortfall of the group with the most memory.
struct GroupRejections {
  std::string memory;
  double memory_usable = -1;

  // The largest group seen without a collective; why, worded only when asked (growing groups of
  // a fleet each set it).
  void no_collective(const std::vector<size_t>& group, const CollectivePaths& paths) {
    if (group.size() <= no_path_group_.size()) return;
    no_path_group_ = group;
    paths_ = &paths;
  }
  std::string no_path() const { return paths_ ? paths_->why_none(no_path_group_) : ""; }
  // Whether short_of_memory would keep the group's reason (it has more memory than the last).
  bool keeps_memory(const PlanInputs& in, const std::vector<size_t>& group) const {
    return usable_of(in, group) > memory_usable;
  }
  void short_of_memory(const PlanInputs& in, const std::vector<size_t>& group, std::string why) {
    const double usable = usable_of(in, group);
    if (usable <= memory_usable) return;
    memory_usable = usable;
    memory = std::move(why);
  }

 private:
  static double usable_of(const PlanInputs& in, const std::vector<size_t>& group) {
    double usable = 0;
    for (size_t g : group)
      usable += in.hosts[g].usable_bytes;
    return usable;
  }
  std::vector<size_t> no_path_group_;
  const CollectivePaths* paths_ = nullptr;
};

// The collective option with the lowest time per exchange.
template <typename TimeOf>
const CollectivePath& fastest_path(const std::vector<CollectivePath>& options, TimeOf time_of) {
  const CollectivePath* best = &options.front();
  for (const auto& o : options)
    if (time_of(o) < time_of(*best)) best = &o;
  return *best;
}

// The fastest way `group` (which has one) can all-reduce, found again for a candidate that is
// evaluated: searches keep the groups of their candidates, not the paths (thousands of them).
template <typename TimeOf>
CollectivePath fastest_path_of(const CollectivePaths& paths, const std::vector<size_t>& group,
                               TimeOf time_of) {
  const std::vector<CollectivePath> options = paths.options(group);
  return fastest_path(options, time_of);
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
