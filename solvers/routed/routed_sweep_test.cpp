#include "solvers/routed/routed_sweep.hpp"

#include <gtest/gtest.h>

#include "tests/routed_instances.hpp"

#include "solvers/routed/routed_stages.hpp"

namespace meshplan::routed_sweep_test {
namespace {

using testing::routed_host;

TEST(routed_sweep_test, a_chain_of_fast_hosts_beside_a_wide_one_is_a_stage_of_lanes) {
  // Two hosts fast on two layers (10 tokens/s, 1 on four) and one that holds all four at 5. The
  // pair in a chain beside the wide one carries 10 + 5; every host holding a whole stage, 7.
  RoutedInstance in;
  in.layers = 4;
  in.hosts = {routed_host("a0", {20, 10, 2, 1}), routed_host("a1", {20, 10, 2, 1}),
              routed_host("b", {6, 6, 6, 5})};
  in.link.assign(3, std::vector<double>(3, 1e6));
  const std::vector<std::vector<size_t>> groups = interchangeable_hosts(in);
  ASSERT_EQ(groups.size(), 2u);
  RoutedLayout layout;
  StageSweep lanes(in, groups, kMostLaneHosts), whole(in, groups, 1);
  ASSERT_TRUE(lanes.run(15, layout));
  EXPECT_NEAR(routed_max_flow(in, layout).total, 15, 1e-9);
  EXPECT_EQ(layout[2], (LayerRange{0, 4}));
  EXPECT_EQ(layout[0].size() + layout[1].size(), 4);
  EXPECT_FALSE(whole.run(15, layout));
  ASSERT_TRUE(whole.run(7, layout));
  EXPECT_LT(routed_max_flow(in, layout).total, 15);
}

// Two regions of four hosts that each hold at most two layers, twelve layers in all: neither
// region holds every layer, so the tokens cross from one to the other, over links of 8 tokens/s
// a pair. A hand-over of one host to one carries 8; one to two, 16, past the hosts' 10.
RoutedInstance two_regions_in_series() {
  RoutedInstance in;
  in.layers = 12;
  for (int i = 0; i < 8; ++i)
    in.hosts.push_back(routed_host((i < 4 ? "a" : "b") + std::to_string(i), {10, 10}));
  in.link.assign(8, std::vector<double>(8, 1e6));
  for (size_t i = 0; i < 8; ++i)
    for (size_t j = 0; j < 8; ++j)
      if (i == j)
        in.link[i][j] = 0;
      else if ((i < 4) != (j < 4))
        in.link[i][j] = 8;
  return in;
}

TEST(routed_sweep_test, regions_in_series_hand_over_on_stages_wide_enough_for_the_flow) {
  const RoutedInstance in = two_regions_in_series();
  const std::vector<std::vector<size_t>> groups = interchangeable_hosts(in);
  StageSweep sweep(in, groups, kMostLaneHosts);
  ASSERT_EQ(sweep.regions(), 2u);
  RoutedLayout layout;
  // Every host alone cannot hold every layer: one region cannot serve by itself.
  ASSERT_TRUE(sweep.run_series(10, layout, {0, 1}, 1));
  EXPECT_NEAR(routed_max_flow(in, layout).total, 10, 1e-9);
  // Hosts of the first region hold the first layers.
  int last_a = 0, first_b = in.layers;
  for (size_t i = 0; i < 8; ++i) {
    if (!layout[i].used()) continue;
    if (i < 4) last_a = std::max(last_a, layout[i].end);
    if (i >= 4) first_b = std::min(first_b, layout[i].start);
  }
  EXPECT_EQ(last_a, first_b);
  // The hand-over is wide enough: its pairs' links carry the flow.
  int senders = 0, receivers = 0;
  for (size_t i = 0; i < 8; ++i) {
    senders += i < 4 && layout[i].end == last_a;
    receivers += i >= 4 && layout[i].used() && layout[i].start == first_b;
  }
  EXPECT_GE(senders * receivers * 8, 10) << senders << " to " << receivers;
}

}  // namespace
}  // namespace meshplan::routed_sweep_test
