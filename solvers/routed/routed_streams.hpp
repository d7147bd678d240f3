// Which count of streams per host a routed plan keeps: every count it may use is searched with a
// budget of its own and the flow reached decides, so that allowing more counts (hosts of more
// memory fit more streams) never returns less than the counts allowed before. A count is not
// searched when its upper bound is no more than the best already reached, or (when what a count
// serves is its flow) when another count's instance allows all it does: the same tables or
// faster, as much memory or more.
#pragma once

#include <functional>
#include <vector>

#include "solvers/routed/routed_search.hpp"

namespace meshplan {

struct StreamCount {
  int streams = 0;
  RoutedInstance instance;  // the instance the count is weighed on (a fleet's: its first shard)
};

struct StreamChoice {
  size_t index = 0;  // into the counts given
  RoutedSolution solution;
  int searched = 0;  // counts searched
};

// Whether instance `b` allows no layout more flow than `a` does: the same hosts and links, each
// host's table no faster and no longer, its memory limits no larger and its LM head no quicker.
bool routed_dominated(const RoutedInstance& b, const RoutedInstance& a);

// What a count's solution serves: its flow, or less (at most the flow, which the count's upper
// bound bounds): under --concurrency, the share of the time the requests asked keep its hosts busy.
using StreamValue = std::function<double(const StreamCount&, const RoutedSolution&)>;

// Searches the counts, two at a time on two threads (the pairs and what they find are the same
// on any machine), the one of the highest upper bound first, and keeps the one that serves the
// most (`value`; null: the flow). Ties go to the fewer streams.
StreamChoice choose_stream_count(const std::vector<StreamCount>& counts,
                                 const RoutedOptions& options, const StreamValue& value = nullptr);

}  // namespace meshplan
