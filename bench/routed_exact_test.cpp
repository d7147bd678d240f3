#include "bench/routed_exact.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "bench/routed_families.hpp"
#include "solvers/routed/routed_search.hpp"

namespace meshplan::routed_exact_test {
namespace {

RoutedHost host(const std::string& name, std::vector<double> table) {
  RoutedHost h;
  h.name = name;
  h.table = std::move(table);
  return h;
}

// Two hosts, two layers: a alone holds both (5 tokens/s, 4 with the LM head); a then b carries 8
// (b's one layer), b then a 6.67 (a slowed by the head). A slow link leaves a alone the best.
TEST(routed_exact_test, a_chain_of_two_hosts) {
  RoutedInstance in;
  in.layers = 2;
  in.hosts = {host("a", {10, 5}), host("b", {8})};
  in.hosts[0].head_s = 0.05;
  in.link = {{0, 100}, {100, 0}};
  const RoutedExact e = solve_routed_exactly(in);
  EXPECT_TRUE(e.optimal);
  EXPECT_NEAR(e.tokens_per_s, 8, 1e-9);
  EXPECT_EQ(e.layout[0], (LayerRange{0, 1}));
  EXPECT_EQ(e.layout[1], (LayerRange{1, 2}));
  // The link is the bottleneck when slower than both hosts, and then a alone is better.
  in.link = {{0, 3}, {3, 0}};
  const RoutedExact slow = solve_routed_exactly(in);
  EXPECT_NEAR(slow.tokens_per_s, 4, 1e-9);
  EXPECT_EQ(slow.layout[0], (LayerRange{0, 2}));
}

// The program, written from the problem's statement alone, and the branch and bound agree on every
// small instance of each family that the program proves: an independent check of the search and
// of its proofs of optimality.
TEST(routed_exact_test, agrees_with_the_search_on_small_instances_of_every_family) {
  int proved = 0;
  for (const std::string& family : routed_family_names())
    for (int hosts : {3, 4})
      for (int layers : {8, 12})
        for (uint64_t seed : {1, 2}) {
          if (hosts == 4 && layers == 12) continue;  // seconds each under the sanitizers
          const RoutedInstance in = generate_routed_instance(family, hosts, layers, seed);
          const RoutedExact e = solve_routed_exactly(in);
          const RoutedSolution s = solve_routed(in);
          const std::string where =
              fmt::format("{}, {} hosts, {} layers, seed {}", family, hosts, layers, seed);
          ASSERT_TRUE(e.optimal) << where;
          ++proved;
          EXPECT_NEAR(s.flow.total, e.tokens_per_s, 1e-6 * e.tokens_per_s) << where;
          EXPECT_TRUE(s.optimal) << where << ": " << s.proof;
          EXPECT_GE(s.bound.tokens_per_s, e.tokens_per_s * (1 - 1e-9)) << where;
          EXPECT_NEAR(routed_max_flow(in, e.layout).total, e.tokens_per_s, 1e-6 * e.tokens_per_s)
              << where << ": the program's layout carries what it says";
        }
  EXPECT_EQ(proved, 18);
}

}  // namespace
}  // namespace meshplan::routed_exact_test
