// Instances beside the bench's (10 hosts, other layer counts and seeds) where the regions are
// joined by slow links: there the best plan is a stage layout that mixes the hosts of two regions
// in a stage, so the tokens cross at several boundaries (routed_linked_stages.hpp), and no other
// start of the search comes near it.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "bench/routed_families.hpp"
#include "solvers/routed/routed_search.hpp"

namespace meshplan::routed_beside_bench_test {
namespace {

struct Instance {
  const char* family;
  int layers;
  uint64_t seed;
};

class routed_beside_bench_test : public ::testing::TestWithParam<Instance> {};

TEST_P(routed_beside_bench_test, stages_weighing_their_links_carry_more_than_every_other_start) {
  const Instance& p = GetParam();
  const RoutedInstance in = generate_routed_instance(p.family, 10, p.layers, p.seed);
  const RoutedSolution s = solve_routed(in);
  const double others =
      std::max({s.pipeline.tokens_per_s, s.replicas.tokens_per_s, s.greedy.tokens_per_s});
  SCOPED_TRACE(
      fmt::format("{}, 10 hosts, {} layers, seed {}: plan {:.1f}, stages {:.1f}, other "
                  "starts {:.1f}, bound {:.1f}",
                  p.family, p.layers, p.seed, s.flow.total, s.stages.tokens_per_s, others,
                  s.bound.tokens_per_s));
  EXPECT_GE(s.stages.tokens_per_s, others * 1.05);
  EXPECT_NEAR(routed_flow_total(in, s.stages.layout), s.stages.tokens_per_s,
              1e-9 * s.stages.tokens_per_s);
  EXPECT_GE(s.flow.total, s.stages.tokens_per_s * (1 - 1e-9));
  EXPECT_LE(s.flow.total, s.bound.tokens_per_s * (1 + 1e-9));
}

INSTANTIATE_TEST_SUITE_P(ten_hosts, routed_beside_bench_test,
                         ::testing::Values(Instance{"two-regions", 50, 1001},
                                           Instance{"two-regions", 70, 1010},
                                           Instance{"four-regions", 50, 1004},
                                           Instance{"four-regions", 70, 1001},
                                           Instance{"four-regions", 70, 1004}),
                         [](const ::testing::TestParamInfo<Instance>& i) {
                           std::string name = fmt::format("{}_{}_layers_seed_{}", i.param.family,
                                                          i.param.layers, i.param.seed);
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

TEST(routed_beside_bench_test_proof, four_regions_over_70_layers_meet_their_bound) {
  // Seed 1001: the stages weighing their links reach the upper bound, so the plan is proven.
  const RoutedSolution s = solve_routed(generate_routed_instance("four-regions", 10, 70, 1001));
  EXPECT_TRUE(s.optimal);
  EXPECT_EQ(s.proof, "meets the upper bound");
  EXPECT_NEAR(s.flow.total, s.bound.tokens_per_s, 1e-9 * s.bound.tokens_per_s);
}

}  // namespace
}  // namespace meshplan::routed_beside_bench_test
