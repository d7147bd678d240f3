// Ways to split candidates into replica groups, apart from what a group's plan is: the exact
// partition of a few hosts, groups balanced by memory, and groups of one kind of machine sized
// by a knapsack over the group sizes planned. Each gives groups of host indices; best_replicas
// (replica_groups.hpp) plans the groups and weighs the splits.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <vector>

namespace meshplan {

// Group g's tokens/s holding u units of the load (-1: it cannot); with no units (units == 0) one
// value, at the group's own best. Empty: the group holds no copy.
using GroupValues = std::function<std::vector<double>(const std::vector<size_t>& members)>;

// The partition of hosts 0..n-1 into two or more groups (hosts may stay idle) with the largest
// sum of the groups' values holding `units` units of the load in all (0: each at its own best),
// by a dynamic program over subsets (every subset valued once: for n of 8 or so). Empty when no
// partition has two groups that hold a copy.
std::vector<std::vector<size_t>> best_partition(size_t n, size_t units, const GroupValues& value);

// `k` groups balanced by memory: each host, largest first (`by_memory`), joins the group with the
// least memory so far (the first such group).
std::vector<std::vector<size_t>> balanced_groups(const std::vector<size_t>& by_memory,
                                                 const std::vector<double>& memory, size_t k);

// The group sizes to plan for a kind of machine whose `fewest` hosts may hold a copy (by
// memory), with `hosts` of that kind and at most `largest` in a group: fewest to 2 fewest + 1,
// then doubling: one host more changes a group's tokens/s most near the fewest. (The caller
// stops doubling once a group serves no more per host than a smaller one.)
std::vector<size_t> replica_sizes(size_t fewest, size_t hosts, size_t largest);

// Groups of `hosts` hosts of one kind with the most tokens/s in all, each group of a size with a
// value (`sizes[i]` hosts serve `values[i]` tokens/s; hosts may stay idle): an unbounded knapsack
// over the hosts. The sizes of the groups, largest first; empty when none holds a copy.
std::vector<size_t> best_group_sizes(size_t hosts, const std::vector<size_t>& sizes,
                                     const std::vector<double>& values);

}  // namespace meshplan
