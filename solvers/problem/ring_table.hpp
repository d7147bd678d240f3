// The table behind exact all-reduce rings over up to kExactPathHosts candidate hosts: one
// bottleneck Held-Karp table that answers every subset at once. For each subset (a bit mask) and
// each host in it, the least worst hop of a path through the whole subset from its lowest host to
// that host, and the host before it on that path (the lowest such host when several tie).
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

namespace meshplan {

inline constexpr float kNoHop = std::numeric_limits<float>::infinity();

struct RingTable {
  size_t n = 0;
  bool built = false;
  // Every pair linked at one cost (hosts on one switch): every order ties and no table is kept;
  // ring_through gives the order the table would.
  bool uniform = false;
  std::vector<float> best;     // [mask * n + v]; kNoHop without such a path
  std::vector<int8_t> parent;  // [mask * n + v]: the host before v; -1 at the start
  std::vector<double> hop;     // the costs it was built from, [v * n + u]
};

// `hop[v * n + u]`: the cost of the hop from v to u, kNoHop without a link; n at most 16. Few
// distinct costs (a fleet has a few kinds of link) are searched level by level: for each subset,
// the hosts a path can end at within each cost, as bit masks.
RingTable bottleneck_ring_table(const std::vector<double>& hop, size_t n);
// The same table by relaxing every state's successors one by one: for many distinct costs, and
// the reference the level search is held to.
RingTable bottleneck_ring_table_by_successors(const std::vector<double>& hop, size_t n);

// The ring through `group` (sorted host indices, at least three) with the least worst hop, the
// hop back to its first host included, in the order the table gives; none without a ring.
std::optional<std::vector<size_t>> ring_through(const RingTable& table,
                                                const std::vector<size_t>& group);

}  // namespace meshplan
