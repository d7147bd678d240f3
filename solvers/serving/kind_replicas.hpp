// Replica splits for fleets: groups of one kind of machine each, sized per kind by a knapsack
// over a few planned group sizes (replica_splits.hpp), so that thousands of hosts of a few kinds
// cost a few plans; and what a chosen split uses of each kind, and why not more.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "solvers/serving/replica_kinds.hpp"

namespace meshplan {

// A group's tokens/s at its own best (its plan's), or nothing when it holds no copy.
using GroupServes = std::function<std::optional<double>(const std::vector<size_t>& members)>;

struct KindSplitInputs {
  const GroupKinds* kinds = nullptr;
  std::vector<double> memory;  // usable bytes per candidate
  double weights = 0;          // the model's layers, in bytes: the fewest hosts of a copy
  size_t most_in_group = 0;    // the most hosts a group takes (the model's layers)
  int concurrency = 0;         // requests in flight in all (0: each group at its own best)
};

// The splits to weigh: every kind of machine in groups of its own (the best mix of sizes), the
// hosts left over idle and then as one more group; then the same with every Thunderbolt island
// that holds a copy as a replica first. Under a number of requests in flight no split has more
// groups than requests (the groups that serve most are kept).
std::vector<std::vector<std::vector<size_t>>> kind_splits(const KindSplitInputs& in,
                                                          const GroupServes& serves);

// Per kind of machine, what `groups` use of it and why not more: "hosts like mini-0001: 4092 of
// 4096 used (682 replicas of 6); 4 left over, fewer than the 6 a copy needs". `names`: the
// candidates' names.
std::vector<std::string> kind_usage(const KindSplitInputs& in, const GroupServes& serves,
                                    const std::vector<std::string>& names,
                                    const std::vector<std::vector<size_t>>& groups);

}  // namespace meshplan
