// The routed max flow on fleets: a boundary between many hosts whose links never bind passes
// through one hub node, and its flow is shared out pair by pair within every host and link.
#include "solvers/routed/routed_flow.hpp"

#include <gtest/gtest.h>

#include <algorithm>

namespace meshplan::routed_flow_test {
namespace {

// Stages of identical hosts, `sizes[s]` hosts of `tokens[s]` tokens/s each, `per_stage` layers a
// stage; every pair linked at `link` tokens/s.
struct Stages {
  RoutedInstance in;
  RoutedLayout layout;
};
Stages stages(const std::vector<size_t>& sizes, const std::vector<double>& tokens, double link) {
  Stages out;
  const int per_stage = 2;
  out.in.layers = per_stage * static_cast<int>(sizes.size());
  for (size_t s = 0; s < sizes.size(); ++s)
    for (size_t k = 0; k < sizes[s]; ++k) {
      RoutedHost h;
      h.name = "h" + std::to_string(out.in.hosts.size());
      h.table.assign(static_cast<size_t>(per_stage), tokens[s]);
      out.in.hosts.push_back(h);
      const int start = per_stage * static_cast<int>(s);
      out.layout.push_back({start, start + per_stage});
    }
  const size_t n = out.in.hosts.size();
  out.in.link.assign(n, std::vector<double>(n, link));
  return out;
}

// Flow in equals flow out at every host, and no pair carries more than its link.
void expect_conserved(const Stages& s, const RoutedFlow& f) {
  const size_t n = s.in.hosts.size();
  std::vector<double> in(n, 0), out(n, 0);
  for (size_t i = 0; i < n; ++i)
    for (const auto& [j, flow] : f.out[i]) {
      EXPECT_LE(flow, s.in.link[i][j] * (1 + 1e-12));
      EXPECT_GE(flow, 0);
      out[i] += flow;
      in[j] += flow;
    }
  for (size_t i = 0; i < n; ++i) {
    EXPECT_NEAR(in[i] + f.entry[i], f.host[i], 1e-9) << i;
    if (s.layout[i].end != s.in.layers) {
      EXPECT_NEAR(out[i], f.host[i], 1e-9) << i;
    }
  }
}

TEST(routed_flow_test, stages_of_many_hosts_carry_their_slowest_stage) {
  // 40 x 50 and 50 x 30 pairs: both boundaries pass through hubs.
  const Stages s = stages({40, 50, 30}, {10, 7, 12}, 1000);
  const RoutedFlow f = routed_max_flow(s.in, s.layout);
  EXPECT_NEAR(f.total, std::min({40 * 10.0, 50 * 7.0, 30 * 12.0}), 1e-9);
  expect_conserved(s, f);
}

TEST(routed_flow_test, a_link_that_binds_keeps_a_link_per_pair) {
  // Links of 0.1 tokens/s: each pair carries little, so the links bind and set the flow.
  const Stages s = stages({40, 40}, {10, 10}, 0.1);
  const RoutedFlow f = routed_max_flow(s.in, s.layout);
  EXPECT_NEAR(f.total, 40 * 40 * 0.1, 1e-6);
  expect_conserved(s, f);
}

TEST(routed_flow_test, a_small_boundary_lists_the_same_pairs_as_a_large_one_shares) {
  // Below the hub's size the pairs are the max flow's own; the totals agree either way.
  const Stages small = stages({3, 4}, {10, 6}, 1000), large = stages({30, 40}, {10, 6}, 1000);
  EXPECT_NEAR(routed_max_flow(small.in, small.layout).total, 24, 1e-9);
  EXPECT_NEAR(routed_max_flow(large.in, large.layout).total, 240, 1e-9);
  expect_conserved(small, routed_max_flow(small.in, small.layout));
  expect_conserved(large, routed_max_flow(large.in, large.layout));
}

}  // namespace
}  // namespace meshplan::routed_flow_test
