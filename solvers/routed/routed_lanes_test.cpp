#include "solvers/routed/routed_lanes.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <random>

namespace meshplan::routed_lanes_test {
namespace {

RoutedInstance one_kind(int layers, std::vector<double> table, int hosts) {
  RoutedInstance in;
  in.layers = layers;
  for (int i = 0; i < hosts; ++i) {
    RoutedHost h;
    h.name = "h" + std::to_string(i);
    h.table = table;
    in.hosts.push_back(h);
  }
  return in;
}

// The best slowest piece of q hosts over [start, start + l), trying every way to cut it.
double by_every_cut(const RoutedInstance& in, int q, int start, int l) {
  double best = 0;
  std::function<void(int, int, double)> cut = [&](int left, int at, double slowest) {
    if (left == 0) {
      if (at == start + l) best = std::max(best, slowest);
      return;
    }
    for (int k = 1; at + k <= start + l; ++k)
      cut(left - 1, at + k, std::min(slowest, range_capacity(in, 0, {at, at + k})));
  };
  cut(q, start, 1e300);
  return best;
}

TEST(routed_lanes_test, a_lane_carries_its_slowest_piece_cut_the_best_way) {
  std::mt19937_64 rng(5);
  for (int round = 0; round < 30; ++round) {
    const int L = std::uniform_int_distribution<int>(2, 12)(rng);
    std::vector<double> table;
    const int K = std::uniform_int_distribution<int>(1, L)(rng);
    for (int k = 1; k <= K; ++k)
      table.push_back(std::uniform_real_distribution<double>(1, 100)(rng));
    RoutedInstance in = one_kind(L, table, 4);
    for (RoutedHost& h : in.hosts) {
      h.head_s = 0.01;
      h.max_with_first = std::max(1, K - 1);
    }
    const LaneTables t(in, 0, 4, 4);
    for (int q = 1; q <= 4; ++q)
      for (int start = 0; start < L; ++start)
        for (int l = q; start + l <= L; ++l) {
          const LanePosition pos = lane_position(start, l, L);
          // A middle lane is priced away from both ends.
          if (pos == kLaneMiddle && (start == 0 || start + l == L)) continue;
          EXPECT_NEAR(t.capacity(pos, q, l), by_every_cut(in, q, start, l), 1e-9)
              << "q " << q << " [" << start << ", " << start + l << ") of " << L;
          // Its pieces tile the range, in layer order, and carry that much.
          if (t.capacity(pos, q, l) <= 0) continue;
          int at = start, pieces = 0;
          double slowest = 1e300;
          t.lay(pos, q, start, l, [&](int s, int k) {
            EXPECT_EQ(s, at);
            slowest = std::min(slowest, range_capacity(in, 0, {s, s + k}));
            at += k;
            ++pieces;
          });
          EXPECT_EQ(at, start + l);
          EXPECT_EQ(pieces, q);
          EXPECT_NEAR(slowest, t.capacity(pos, q, l), 1e-9);
        }
  }
}

TEST(routed_lanes_test, hosts_of_a_group_cut_into_lanes_carry_the_most_their_sizes_allow) {
  // Three hosts over 6 layers of a table that halves each layer: one lane of 3 (2 layers each)
  // carries 50, three hosts each holding all 6 carry 3 x 100/32.
  RoutedInstance in = one_kind(8, {100, 50, 25, 12.5, 6.25, 3.125}, 3);
  const LaneTables t(in, 0, 3, 3);
  const GroupLanes lanes(t, 3, 8);
  EXPECT_DOUBLE_EQ(lanes.capacity(3, 6), 50);
  EXPECT_EQ(lanes.lanes(3, 6), std::vector<int>{3});
  EXPECT_DOUBLE_EQ(lanes.capacity(3, 2), 150);  // three lanes of one, each holding both layers
  EXPECT_EQ(lanes.lanes(3, 2), (std::vector<int>{1, 1, 1}));
  EXPECT_DOUBLE_EQ(lanes.capacity(2, 7), 12.5);  // 3 + 4 layers: the slower piece holds 4
  EXPECT_DOUBLE_EQ(lanes.capacity(1, 7), 0);     // a host holds at most 6
}

}  // namespace
}  // namespace meshplan::routed_lanes_test
