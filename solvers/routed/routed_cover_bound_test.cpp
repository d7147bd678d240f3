#include "solvers/routed/routed_cover_bound.hpp"

#include <gtest/gtest.h>

#include <random>

#include "solvers/routed/routed_bounds.hpp"
#include "tests/routed_instances.hpp"

namespace meshplan::routed_cover_bound_test {
namespace {

TEST(routed_cover_bound_test, never_below_the_best_layout) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> speed(1, 100);
  int tighter = 0;
  for (int trial = 0; trial < 120; ++trial) {
    RoutedInstance in;
    in.layers = std::uniform_int_distribution<int>(1, 6)(rng);
    const int n = std::uniform_int_distribution<int>(1, 4)(rng);
    for (int i = 0; i < n; ++i) {
      RoutedHost h;
      h.name = "h" + std::to_string(i);
      const int len = std::uniform_int_distribution<int>(1, in.layers)(rng);
      for (int k = 0; k < len; ++k)
        h.table.push_back(std::round(speed(rng)));
      if (rng() % 3 == 0) h.head_s = 1 / speed(rng);
      if (rng() % 3 == 0) h.max_with_first = std::uniform_int_distribution<int>(0, len)(rng);
      if (rng() % 3 == 0) h.max_with_last = std::uniform_int_distribution<int>(0, len)(rng);
      h.max_with_both = std::min(h.max_with_first, h.max_with_last);
      if (rng() % 3 == 0 && !in.hosts.empty()) h.table = in.hosts.back().table;  // a twin
      in.hosts.push_back(h);
    }
    in.link.assign(n, std::vector<double>(n, 1e9));
    const double high = routed_upper_bound(in).tokens_per_s;
    const double bound = layer_cover_bound(in, high);
    const double best = testing::routed_best_flow(in);
    EXPECT_GE(bound, best * (1 - 1e-9)) << "trial " << trial;
    EXPECT_LE(bound, high);
    tighter += bound < high * (1 - 1e-6);
  }
  EXPECT_GT(tighter, 0) << "the covers never tightened the bound they were given";
}

TEST(routed_cover_bound_test, a_host_cannot_cover_two_layers_at_once) {
  // Two layers and three hosts of one layer each at 6 tokens/s: layer work allows 9 (the three
  // hosts' 18 over two layers), but a layer is covered by whole hosts, one or two of them: 6.
  RoutedInstance in =
      testing::routed_cluster(2, {testing::routed_host("a", {6}), testing::routed_host("b", {6}),
                                  testing::routed_host("c", {6})});
  EXPECT_NEAR(layer_cover_bound(in, 9), 6, 9 * 1e-3);  // to the bisection's precision
  // A fourth host lets both layers have two: 12.
  in = testing::routed_cluster(2, {in.hosts[0], in.hosts[1], in.hosts[2], in.hosts[0]});
  EXPECT_NEAR(layer_cover_bound(in, 12), 12, 1e-9);
}

TEST(routed_cover_bound_test, nothing_to_cover_gives_nothing) {
  RoutedInstance in;
  in.layers = 3;
  EXPECT_EQ(layer_cover_bound(in, 10), 0);
  RoutedHost h;
  h.name = "short";
  h.table = {5};
  in.hosts.push_back(h);
  EXPECT_EQ(layer_cover_bound(in, 0), 0);
  EXPECT_LT(layer_cover_bound(in, 10), 1e-2) << "one host of one layer covers none of three";
}

}  // namespace
}  // namespace meshplan::routed_cover_bound_test
