#include "solvers/routed/routed_linked_stages.hpp"

#include <gtest/gtest.h>

#include <set>

#include "solvers/routed/routed_stages.hpp"

namespace meshplan::routed_linked_stages_test {
namespace {

// Two regions of two one-layer hosts at 10 tokens/s over 2 layers; 4 tokens/s a link between the
// regions, unlimited inside one. Stages of one region each pass 4 x 4 = 16 tokens/s over the slow
// links; stages of one host of each region pass 20 inside the regions.
RoutedInstance two_regions() {
  RoutedInstance in;
  in.layers = 2;
  for (const char* name : {"a1", "a2", "b1", "b2"})
    in.hosts.push_back({name, {10}});
  in.link.assign(4, std::vector<double>(4, 0));
  for (size_t i = 0; i < 4; ++i)
    for (size_t j = 0; j < 4; ++j)
      if (i != j) in.link[i][j] = (i < 2) == (j < 2) ? 1000 : 4;
  return in;
}

TEST(RoutedLinkedStages, MixesTheRegionsWhereTheLinksBetweenThemAreSlow) {
  const RoutedInstance in = two_regions();
  const std::vector<std::vector<size_t>> groups = interchangeable_hosts(in);
  ASSERT_EQ(groups.size(), 2u);
  const Chains c = linked_stage_layout(in, groups, 0);
  EXPECT_NEAR(c.tokens_per_s, 20, 1e-9);
  EXPECT_NEAR(routed_flow_total(in, c.layout), c.tokens_per_s, 1e-9);
  EXPECT_EQ(c.chains, 2);
  // Each stage holds one host of each region.
  for (const LayerRange r : {LayerRange{0, 1}, LayerRange{1, 2}}) {
    std::set<bool> regions;
    for (size_t i = 0; i < 4; ++i)
      if (c.layout[i] == r) regions.insert(i < 2);
    EXPECT_EQ(regions.size(), 2u) << "stage [" << r.start << ", " << r.end << ")";
  }
}

TEST(RoutedLinkedStages, ReturnsOnlyLayoutsAboveLow) {
  const RoutedInstance in = two_regions();
  const std::vector<std::vector<size_t>> groups = interchangeable_hosts(in);
  EXPECT_NEAR(linked_stage_layout(in, groups, 16).tokens_per_s, 20, 1e-9);
  const Chains none = linked_stage_layout(in, groups, 20);
  EXPECT_EQ(none.tokens_per_s, 0);
  EXPECT_EQ(none.chains, 0);
  EXPECT_EQ(none.layout.size(), in.hosts.size());
}

TEST(RoutedLinkedStages, ManyKindsOfHostsAreNotTried) {
  // 13 hosts all different: 2^13 counts of hosts used, past what the program takes on.
  RoutedInstance in;
  in.layers = 13;
  for (int i = 0; i < 13; ++i)
    in.hosts.push_back({"h" + std::to_string(i), {10.0 + i, 5.0 + i}});
  const Chains c = linked_stage_layout(in, interchangeable_hosts(in), 0);
  EXPECT_EQ(c.tokens_per_s, 0);
  EXPECT_EQ(c.chains, 0);
}

}  // namespace
}  // namespace meshplan::routed_linked_stages_test
