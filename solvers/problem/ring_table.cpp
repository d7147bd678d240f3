#include "solvers/problem/ring_table.hpp"

#include <algorithm>

namespace meshplan {
namespace {

// Above this many distinct costs the level search does more work than relaxing successors.
constexpr size_t kMaxLevels = 16;

uint32_t all_hosts(size_t n) {
  return static_cast<uint32_t>((uint64_t{1} << n) - 1);
}

RingTable empty_table(const std::vector<double>& hop, size_t n) {
  RingTable t;
  t.n = n;
  t.hop = hop;
  t.built = true;
  const size_t masks = size_t{1} << n;
  t.best.assign(masks * n, kNoHop);
  t.parent.assign(masks * n, -1);
  for (size_t s = 0; s < n; ++s)
    t.best[(size_t{1} << s) * n + s] = 0;
  return t;
}

bool every_pair_at_one_cost(const std::vector<double>& hop, size_t n) {
  if (n < 2) return false;
  for (size_t v = 0; v < n; ++v)
    for (size_t u = 0; u < n; ++u)
      if (u != v && (hop[v * n + u] == kNoHop || hop[v * n + u] != hop[1])) return false;
  return true;
}

// Each subset, in increasing order, passes its paths on to the hosts outside it: a path from the
// subset's lowest host ending at v extends to u, worst hop max(path, hop v->u). Every subset
// before it has passed on already, so its own paths are final when it is reached.
RingTable by_levels(const std::vector<double>& hop, size_t n, const std::vector<float>& levels) {
  RingTable t = empty_table(hop, n);
  const size_t L = levels.size();
  auto level_of = [&](float c) {
    return static_cast<size_t>(std::lower_bound(levels.begin(), levels.end(), c) - levels.begin());
  };
  // into[u * L + l]: the hosts whose hop to u costs at most levels[l].
  std::vector<uint32_t> into(n * L, 0);
  for (size_t v = 0; v < n; ++v)
    for (size_t u = 0; u < n; ++u)
      if (u != v && hop[v * n + u] != kNoHop)
        for (size_t l = level_of(static_cast<float>(hop[v * n + u])); l < L; ++l)
          into[u * L + l] |= uint32_t{1} << v;
  const size_t masks = size_t{1} << n;
  std::vector<uint32_t> reach(L);  // hosts a path through the subset ends at within levels[l]
  for (size_t mask = 1; mask < masks; ++mask) {
    const size_t s = static_cast<size_t>(__builtin_ctzll(mask));
    // Paths start at the subset's lowest host, so only hosts above it may join.
    const uint32_t free = all_hosts(n) & ~static_cast<uint32_t>(mask) & ~((uint32_t{2} << s) - 1);
    if (!free) continue;
    std::fill(reach.begin(), reach.end(), 0);
    for (uint32_t vs = static_cast<uint32_t>(mask); vs; vs &= vs - 1) {
      const size_t v = static_cast<size_t>(__builtin_ctz(vs));
      const float b = t.best[mask * n + v];
      if (b != kNoHop) reach[level_of(b)] |= uint32_t{1} << v;
    }
    for (size_t l = 1; l < L; ++l)
      reach[l] |= reach[l - 1];
    if (!reach[L - 1]) continue;
    for (uint32_t us = free; us; us &= us - 1) {
      const size_t u = static_cast<size_t>(__builtin_ctz(us));
      for (size_t l = 0; l < L; ++l)
        if (const uint32_t via = reach[l] & into[u * L + l]) {
          // The least worst hop is the first level reached; the lowest host on it goes before.
          const size_t next = (mask | size_t{1} << u) * n + u;
          t.best[next] = levels[l];
          t.parent[next] = static_cast<int8_t>(__builtin_ctz(via));
          break;
        }
    }
  }
  return t;
}

}  // namespace

RingTable bottleneck_ring_table_by_successors(const std::vector<double>& hop, size_t n) {
  RingTable t = empty_table(hop, n);
  std::vector<uint32_t> out(n, 0);  // per host, the hosts it has a link to
  for (size_t v = 0; v < n; ++v)
    for (size_t u = 0; u < n; ++u)
      if (u != v && hop[v * n + u] != kNoHop) out[v] |= uint32_t{1} << u;
  const size_t masks = size_t{1} << n;
  for (size_t mask = 1; mask < masks; ++mask) {
    const size_t s = static_cast<size_t>(__builtin_ctzll(mask));
    const uint32_t above_start = ~((uint32_t{2} << s) - 1);
    for (uint32_t vs = static_cast<uint32_t>(mask); vs; vs &= vs - 1) {
      const size_t v = static_cast<size_t>(__builtin_ctz(vs));
      const float here = t.best[mask * n + v];
      if (here == kNoHop) continue;
      for (uint32_t us = out[v] & above_start & ~static_cast<uint32_t>(mask); us; us &= us - 1) {
        const size_t u = static_cast<size_t>(__builtin_ctz(us));
        const size_t next = (mask | size_t{1} << u) * n + u;
        const float value = std::max(here, static_cast<float>(hop[v * n + u]));
        if (value < t.best[next]) {
          t.best[next] = value;
          t.parent[next] = static_cast<int8_t>(v);
        }
      }
    }
  }
  return t;
}

RingTable bottleneck_ring_table(const std::vector<double>& hop, size_t n) {
  if (every_pair_at_one_cost(hop, n)) {
    RingTable t;
    t.n = n;
    t.built = t.uniform = true;
    t.hop = hop;
    return t;
  }
  std::vector<float> levels;
  for (double c : hop)
    if (c != kNoHop) levels.push_back(static_cast<float>(c));
  std::sort(levels.begin(), levels.end());
  levels.erase(std::unique(levels.begin(), levels.end()), levels.end());
  if (levels.empty() || levels.size() > kMaxLevels)
    return bottleneck_ring_table_by_successors(hop, n);
  return by_levels(hop, n, levels);
}

std::optional<std::vector<size_t>> ring_through(const RingTable& t,
                                                const std::vector<size_t>& group) {
  if (t.uniform) {
    // What the table gives when every hop ties: the path ends at the second host and each step
    // back takes the lowest host left, so the ring runs from the first host down the rest.
    std::vector<size_t> order{group.front()};
    order.insert(order.end(), group.rbegin(), group.rend() - 1);
    return order;
  }
  const size_t n = t.n;
  size_t mask = 0;
  for (size_t g : group)
    mask |= size_t{1} << g;
  const size_t s = group.front();
  float best = kNoHop;
  size_t end = 0;
  for (size_t v : group) {
    if (v == s) continue;
    const float value = std::max(t.best[mask * n + v], static_cast<float>(t.hop[v * n + s]));
    if (value < best) {
      best = value;
      end = v;
    }
  }
  if (best == kNoHop) return std::nullopt;
  std::vector<size_t> order;
  for (size_t v = end; mask;) {
    order.push_back(v);
    const int prev = t.parent[mask * n + v];
    mask &= ~(size_t{1} << v);
    if (prev < 0) break;
    v = static_cast<size_t>(prev);
  }
  std::reverse(order.begin(), order.end());
  return order;
}

}  // namespace meshplan
