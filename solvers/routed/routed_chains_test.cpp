#include "solvers/routed/routed_chains.hpp"

#include <gtest/gtest.h>

#include "tests/routed_instances.hpp"

#include "solvers/routed/routed_regions.hpp"

namespace meshplan::routed_chains_test {
namespace {

using testing::routed_host;

// Regions of hosts on fast links, `cross` tokens/s a pair between regions.
RoutedInstance regions(int layers, const std::vector<std::vector<RoutedHost>>& of, double cross) {
  RoutedInstance in;
  in.layers = layers;
  std::vector<size_t> region;
  for (size_t r = 0; r < of.size(); ++r)
    for (const RoutedHost& h : of[r]) {
      in.hosts.push_back(h);
      region.push_back(r);
    }
  const size_t n = in.hosts.size();
  in.link.assign(n, std::vector<double>(n, 1e6));
  for (size_t i = 0; i < n; ++i)
    for (size_t j = 0; j < n; ++j)
      if (i == j)
        in.link[i][j] = 0;
      else if (region[i] != region[j])
        in.link[i][j] = cross;
  return in;
}

TEST(routed_chains_test, one_region_has_no_chains) {
  FakeClock clock;
  const RoutedInstance in =
      regions(4, {{routed_host("a", {5, 5, 5, 5}), routed_host("b", {5, 5})}}, 0);
  EXPECT_EQ(region_chains_layout(in, clock, 1).tokens_per_s, 0);
}

TEST(routed_chains_test, regions_that_cannot_serve_alone_serve_in_series) {
  // Each region's four hosts hold at most two layers each: eight of the twelve layers. In series,
  // with hand-overs two hosts wide (4 pairs of 8 tokens/s), every host's 10 tokens/s is reached.
  std::vector<RoutedHost> a, b;
  for (int i = 0; i < 4; ++i) {
    a.push_back(routed_host("a" + std::to_string(i), {10, 10}));
    b.push_back(routed_host("b" + std::to_string(i), {10, 10}));
  }
  const RoutedInstance in = regions(12, {a, b}, 8);
  ASSERT_EQ(routed_regions(in).size(), 2u);
  FakeClock clock;
  const Chains c = region_chains_layout(in, clock, 1);
  EXPECT_NEAR(c.tokens_per_s, 10, 1e-9);
  EXPECT_NEAR(routed_max_flow(in, c.layout).total, c.tokens_per_s, 1e-9);
}

TEST(routed_chains_test, regions_that_serve_alone_serve_side_by_side) {
  // Two regions that each hold every layer on their own host, joined by links too slow to
  // matter: side by side they carry both hosts' flow.
  const RoutedInstance in = regions(
      3,
      {{routed_host("a", {9, 9, 9})}, {routed_host("b", {4, 4, 4})}, {routed_host("c", {2, 2, 2})}},
      0.5);
  ASSERT_EQ(routed_regions(in).size(), 3u);
  FakeClock clock;
  const Chains c = region_chains_layout(in, clock, 1);
  EXPECT_NEAR(c.tokens_per_s, 15, 1e-9);
  for (size_t i = 0; i < 3; ++i)
    EXPECT_EQ(c.layout[i], (LayerRange{0, 3})) << in.hosts[i].name;
}

}  // namespace
}  // namespace meshplan::routed_chains_test
