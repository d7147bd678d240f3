#include "solvers/problem/ring_table.hpp"

#include <gtest/gtest.h>

#include <random>

namespace meshplan::ring_table_test {
namespace {

// n hosts with hops drawn from `costs` (kNoHop among them leaves a pair unlinked), one direction
// at a time unless `symmetric`.
std::vector<double> random_hops(std::mt19937& rng, size_t n, const std::vector<double>& costs,
                                bool symmetric) {
  std::vector<double> hop(n * n, kNoHop);
  std::uniform_int_distribution<size_t> pick(0, costs.size() - 1);
  for (size_t v = 0; v < n; ++v)
    for (size_t u = 0; u < n; ++u)
      if (u != v && (!symmetric || v < u)) {
        hop[v * n + u] = costs[pick(rng)];
        if (symmetric) hop[u * n + v] = hop[v * n + u];
      }
  return hop;
}

TEST(ring_table_test, level_search_equals_relaxing_successors) {
  // Costs of a few kinds of link (and missing links), as fleets have: the level search must give
  // the reference's table entry for entry, ties included, for it decides the ring's order.
  std::mt19937 rng(11);
  const std::vector<std::vector<double>> families = {
      {1.5e-4, 3.0e-4},
      {1.5e-4, 3.0e-4, kNoHop},
      {5e-5, 5e-5, 1.5e-4, kNoHop, kNoHop},
      {1e-5, 2e-5, 3e-5, 4e-5, 5e-5, 6e-5, 7e-5, kNoHop},
  };
  size_t compared = 0;
  for (size_t n = 2; n <= 10; ++n)
    for (const auto& costs : families)
      for (bool symmetric : {true, false})
        for (int trial = 0; trial < 4; ++trial) {
          const std::vector<double> hop = random_hops(rng, n, costs, symmetric);
          const RingTable fast = bottleneck_ring_table(hop, n);
          if (fast.uniform) continue;
          const RingTable ref = bottleneck_ring_table_by_successors(hop, n);
          ASSERT_EQ(fast.best, ref.best) << "n " << n << " trial " << trial;
          ASSERT_EQ(fast.parent, ref.parent) << "n " << n << " trial " << trial;
          ++compared;
        }
  EXPECT_GT(compared, 200u);
}

TEST(ring_table_test, a_path_avoids_the_slow_hop_when_one_can) {
  // Four hosts, all linked at 1 except 0-2 and 1-3 at 5: the path 0 -> 1 -> 2 -> 3 keeps to 1.
  const size_t n = 4;
  std::vector<double> hop(n * n, 1.0);
  for (size_t v = 0; v < n; ++v)
    hop[v * n + v] = kNoHop;
  for (auto [a, b] : {std::pair<size_t, size_t>{0, 2}, {1, 3}})
    hop[a * n + b] = hop[b * n + a] = 5.0;
  const RingTable t = bottleneck_ring_table(hop, n);
  ASSERT_FALSE(t.uniform);
  const size_t all = 0b1111;
  EXPECT_EQ(t.best[all * n + 3], 1.0f);
  EXPECT_EQ(t.parent[all * n + 3], 2);
  // Ending at 2 needs one of the slow hops, whichever way.
  EXPECT_EQ(t.best[all * n + 2], 5.0f);
  // No path starts anywhere but at the subset's lowest host.
  EXPECT_EQ(t.best[all * n + 0], kNoHop);
  // Hosts on one switch: no table at all.
  std::vector<double> flat(n * n, 2.0);
  for (size_t v = 0; v < n; ++v)
    flat[v * n + v] = kNoHop;
  EXPECT_TRUE(bottleneck_ring_table(flat, n).uniform);
  EXPECT_TRUE(bottleneck_ring_table(flat, n).best.empty());
}

}  // namespace
}  // namespace meshplan::ring_table_test
