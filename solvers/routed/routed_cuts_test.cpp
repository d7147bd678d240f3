#include "solvers/routed/routed_cuts.hpp"

#include <gtest/gtest.h>

#include "solvers/routed/routed_bounds.hpp"
#include "solvers/routed/routed_search.hpp"

namespace meshplan::routed_cuts_test {
namespace {

RoutedInstance three_hosts_two_layers() {
  // Three hosts that each hold one layer at 6 tokens/s. Layer work alone allows 9 (three hosts'
  // 6 spread over two layers), but a layer's hosts are whole: one layer gets one host, so 6.
  RoutedInstance in;
  in.layers = 2;
  for (const char* name : {"a", "b", "c"}) {
    RoutedHost h;
    h.name = name;
    h.table = {6};
    in.hosts.push_back(h);
  }
  in.link.assign(3, std::vector<double>(3, 100));
  return in;
}

TEST(RoutedCuts, AWholeHostPerLayerBoundsTheFlow) {
  const RoutedInstance in = three_hosts_two_layers();
  EXPECT_NEAR(per_layer_cut_bound(in, 9), 6, 1e-6);
  const RoutedBound b = routed_upper_bound(in);
  EXPECT_NEAR(b.tokens_per_s, 6, 1e-6);
  EXPECT_NE(b.method.find("per-layer cuts"), std::string::npos) << b.method;
  // The layout that meets it is then proven by the bound alone.
  const RoutedSolution s = solve_routed(in);
  EXPECT_NEAR(s.flow.total, 6, 1e-9);
  EXPECT_TRUE(s.optimal);
  EXPECT_EQ(s.proof, "meets the upper bound");
}

TEST(RoutedCuts, AHostThatCarriesTheWholeFlowLeavesTheBoundAlone) {
  // One host holds both layers at 10: nothing to round, the bound is what it was given.
  RoutedInstance in;
  in.layers = 2;
  RoutedHost h;
  h.name = "big";
  h.table = {20, 10};
  in.hosts.push_back(h);
  in.link.assign(1, std::vector<double>(1, 0));
  EXPECT_DOUBLE_EQ(per_layer_cut_bound(in, 10), 10);
  EXPECT_DOUBLE_EQ(per_layer_cut_bound(in, 0), 0);
}

}  // namespace
}  // namespace meshplan::routed_cuts_test
