#include "solvers/routed/routed_stages.hpp"

#include <gtest/gtest.h>

namespace meshplan::routed_stages_test {
namespace {

// `kinds` kinds of `each` hosts; kind k holds up to k + 2 layers, at 10 / layers tokens/s.
RoutedInstance kinds_of_hosts(int kinds, int each, int layers) {
  RoutedInstance in;
  in.layers = layers;
  for (int k = 0; k < kinds; ++k)
    for (int i = 0; i < each; ++i) {
      RoutedHost h;
      h.name = "k" + std::to_string(k) + "-" + std::to_string(i);
      for (int l = 1; l <= k + 2; ++l)
        h.table.push_back(10.0 / l);
      in.hosts.push_back(h);
    }
  return in;  // no links: every pair unlimited
}

TEST(RoutedStages, TheProgramFindsTheBestLayoutOfFewKinds) {
  // Two kinds of two hosts over 4 layers: kind 1 holds 3 layers at 10/3 each; the best layout
  // puts layers on stages whose slowest stage is largest.
  const RoutedInstance in = kinds_of_hosts(2, 2, 4);
  const Chains c = best_stage_layout(in, interchangeable_hosts(in));
  ASSERT_GT(c.chains, 0);
  // Two stages of 2 layers, each held by two hosts at 5 tokens/s: 10 in all.
  EXPECT_NEAR(c.tokens_per_s, 10, 1e-9);
}

TEST(RoutedStages, ManyKindsOfThousandsOfHostsGiveNoLayoutInsteadOfOverflowing) {
  // 12 kinds of 400 hosts: 401^12 states pass what a size_t holds; the program must see that its
  // work is too large before it forms the states, not wrap around and index past its table.
  const RoutedInstance in = kinds_of_hosts(12, 400, 20);
  const std::vector<std::vector<size_t>> groups = interchangeable_hosts(in);
  ASSERT_EQ(groups.size(), 12u);
  const Chains c = best_stage_layout(in, groups);
  EXPECT_EQ(c.chains, 0);
  EXPECT_EQ(c.tokens_per_s, 0);
}

}  // namespace
}  // namespace meshplan::routed_stages_test
