#include "solvers/routed/routed_shards.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <string>

namespace meshplan::routed_shards_test {
namespace {

constexpr double kBudget = 0.05;

// `hosts` hosts of three kinds in seeded proportions over 40 layers: kind k holds up to 12 + 8k
// layers at (30 + 20k) / layers^0.9 tokens/s; every pair linked at `link` tokens/s, except
// pairs of one island (hosts 2i, 2i + 1 when `islands`) at ten times that.
RoutedInstance fleet(int hosts, uint64_t seed, double link, bool islands) {
  std::mt19937_64 rng(seed);
  RoutedInstance in;
  in.layers = 40;
  for (int i = 0; i < hosts; ++i) {
    const int k = std::uniform_int_distribution<int>(0, 2)(rng);
    RoutedHost h;
    h.name = "k" + std::to_string(k) + "-" + std::to_string(i);
    for (int l = 1; l <= 12 + 8 * k; ++l)
      h.table.push_back((30.0 + 20.0 * k) / std::pow(l, 0.9));
    h.head_s = 0.001 * (k + 1);
    in.hosts.push_back(h);
  }
  const size_t n = in.hosts.size();
  in.link.assign(n, std::vector<double>(n, link));
  for (size_t i = 0; i < n; ++i) {
    in.link[i][i] = 0;
    if (islands && (i ^ 1) < n) in.link[i][i ^ 1] = 10 * link;
  }
  return in;
}

RoutedOptions budget() {
  RoutedOptions o;
  o.time_limit_s = kBudget;
  return o;
}

TEST(routed_shards_test, up_to_the_threshold_it_is_the_search_itself) {
  const RoutedInstance in = fleet(static_cast<int>(kRoutedShardHosts), 3, 1000, true);
  const RoutedSolution a = solve_routed_fleet(in, budget());
  const RoutedSolution b = solve_routed(in, budget());
  EXPECT_EQ(a.layout, b.layout);
  EXPECT_DOUBLE_EQ(a.flow.total, b.flow.total);
  EXPECT_EQ(routed_shards(in).size(), 1u);
}

TEST(routed_shards_test, a_fleet_gets_at_least_its_shards_side_by_side_within_its_bound) {
  for (const bool islands : {false, true}) {
    const RoutedInstance in = fleet(300, 7, 1000, islands);
    const RoutedSolution s = solve_routed_fleet(in, budget());
    // Every host is in one shard of at most kRoutedShardSize.
    const auto shards = routed_shards(in);
    ASSERT_EQ(shards.size(), (300 + kRoutedShardSize - 1) / kRoutedShardSize);
    std::vector<size_t> all;
    for (const auto& sh : shards) {
      EXPECT_LE(sh.size(), kRoutedShardSize);
      all.insert(all.end(), sh.begin(), sh.end());
    }
    std::sort(all.begin(), all.end());
    std::vector<size_t> every(300);
    std::iota(every.begin(), every.end(), 0);
    EXPECT_EQ(all, every);
    // The flow is the layout's on the whole fleet, at least what each shard's layout carries on
    // its own hosts, and at most the fleet's upper bound.
    EXPECT_NEAR(s.flow.total, routed_max_flow(in, s.layout).total, 1e-9 * s.flow.total);
    double sum = 0;
    for (const auto& sh : shards) {
      RoutedLayout part;
      for (size_t i : sh)
        part.push_back(s.layout[i]);
      sum += routed_max_flow(routed_reordered(in, sh), part).total;
    }
    EXPECT_GE(s.flow.total, sum * (1 - 1e-9)) << islands;
    EXPECT_LE(s.flow.total, s.bound.tokens_per_s * (1 + 1e-9)) << islands;
    EXPECT_GT(s.flow.total, 0.8 * s.bound.tokens_per_s) << islands << ": " << s.proof;
    // Against its baselines on the whole fleet.
    EXPECT_GE(s.flow.total, s.pipeline.tokens_per_s * (1 - 1e-9));
    EXPECT_GE(s.flow.total, s.replicas.tokens_per_s * (1 - 1e-9));
    EXPECT_NE(s.proof.find("shards"), std::string::npos) << s.proof;
  }
}

TEST(routed_shards_test, a_fleet_listed_in_another_order_or_renamed_gets_the_same_flow) {
  const RoutedInstance in = fleet(260, 11, 500, true);
  const double flow = solve_routed_fleet(in, budget()).flow.total;
  std::vector<size_t> order(in.hosts.size());
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), std::mt19937_64(2));
  RoutedInstance shuffled = routed_reordered(in, order);
  for (RoutedHost& h : shuffled.hosts)
    h.name = "renamed-" + h.name;
  EXPECT_NEAR(solve_routed_fleet(shuffled, budget()).flow.total, flow, 1e-9 * flow);
}

// A plan weighs its counts of streams on the first shard with the options that shard gets in the
// fleet's search, and hands the search of the count it keeps back: the fleet's layout is then the
// one it gets searching every shard itself.
TEST(routed_shards_test, the_first_shard_searched_before_gives_the_layout_searched_again) {
  const RoutedInstance in = fleet(300, 5, 1000, true);
  const RoutedOptions each = routed_shard_options(budget(), routed_unlike_shards(in));
  EXPECT_FALSE(each.covers);
  EXPECT_LT(each.time_limit_s, kBudget);  // shared among the shards unlike each other
  EXPECT_GT(each.time_limit_s, kBudget / static_cast<double>(routed_shards(in).size()) * 0.99);
  const RoutedSolution first = solve_routed(routed_reordered(in, routed_shards(in).front()), each);
  const RoutedSolution again = solve_routed_fleet(in, budget());
  const RoutedSolution reused = solve_routed_fleet(in, budget(), &first);
  EXPECT_EQ(reused.layout, again.layout);
  EXPECT_DOUBLE_EQ(reused.flow.total, again.flow.total);
  EXPECT_EQ(reused.nodes, again.nodes);
  // Up to the threshold there is one shard, and the solution given is the answer.
  const RoutedInstance small = fleet(20, 5, 1000, true);
  EXPECT_EQ(routed_unlike_shards(small), 1u);
  const RoutedSolution whole = solve_routed(small, budget());
  EXPECT_EQ(solve_routed_fleet(small, budget(), &whole).layout, whole.layout);
}

}  // namespace
}  // namespace meshplan::routed_shards_test
