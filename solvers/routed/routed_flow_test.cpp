// The routed max flow on fleets: a boundary between many hosts whose links never bind passes
// through one hub node, and its flow is shared out pair by pair within every host and link.
#include "solvers/routed/routed_flow.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "solvers/routed/routed_bounds.hpp"
#include "solvers/routed/routed_regions.hpp"
#include "solvers/routed/routed_stages.hpp"

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

TEST(routed_flow_test, the_total_alone_is_the_max_flows_after_any_network_before_it) {
  // The network's arrays are kept between calls: a small network after a large one (and a large
  // after a small, and prefixes cut short) must give what a fresh measurement gives.
  const Stages small = stages({3, 4}, {10, 6}, 1000), large = stages({30, 40}, {10, 6}, 1000),
               tight = stages({40, 40}, {10, 10}, 0.1);
  for (int round = 0; round < 2; ++round)
    for (const Stages* s : {&large, &small, &tight, &small, &large}) {
      const double total = routed_flow_total(s->in, s->layout);
      EXPECT_EQ(total, routed_max_flow(s->in, s->layout).total);
      EXPECT_EQ(routed_flow_total(s->in, s->layout, 1), routed_max_flow(s->in, s->layout, 1).total);
      EXPECT_GE(routed_flow_total(s->in, s->layout, 1), total - 1e-9);
    }
  EXPECT_NEAR(routed_flow_total(small.in, small.layout), 24, 1e-9);
  EXPECT_NEAR(routed_flow_total(tight.in, tight.layout), 40 * 40 * 0.1, 1e-6);
}

LinkFigures figures(const char* name, double latency_s, double bandwidth) {
  LinkFigures l;
  l.name = name;
  l.latency_s = latency_s;
  l.bandwidth = bandwidth;
  return l;
}

TEST(routed_flow_test, the_planners_links_give_what_a_table_of_them_gives) {
  // A fleet's instance reads its links from the planner's matrix (media and cables); the same
  // links tabled pair by pair must give the same flows, chains, groups and regions.
  std::mt19937 rng(5);
  for (int round = 0; round < 30; ++round) {
    const size_t n = 6 + rng() % 10;
    const double message = 16384;
    auto matrix = std::make_shared<LinkMatrix>(n);
    const LinkFigures ten = figures("10gbe", 50e-6, 1.25e9), ib = figures("ib", 5e-6, 50e9),
                      tb5 = figures("tb5", 10e-6, 10e9);
    const size_t a = matrix->add_medium(ten, 1), b = matrix->add_medium(ib, 0.5);
    for (size_t h = 0; h < n; ++h) {
      if (rng() % 6 != 0) matrix->join(h, a);
      if (rng() % 3 == 0) matrix->join(h, b);
    }
    for (int c = 0; c < 2; ++c) {  // a cable, both ways
      const size_t x = rng() % n, y = rng() % n;
      if (x == y) continue;
      matrix->set(x, y, tb5);
      matrix->set(y, x, tb5);
    }
    RoutedInstance fleet;
    fleet.layers = 8;
    for (size_t h = 0; h < n; ++h) {
      RoutedHost host;
      host.name = "h" + std::to_string(h);
      // Three kinds; from round 20 some beyond what the 10 GbE switch carries, so that only
      // InfiniBand or a cable joins them into a region.
      const double speed =
          round >= 20 && rng() % 2 == 0 ? 100000.0 : 2000.0 * static_cast<double>(1 + rng() % 3);
      for (int k = 1; k <= 8; ++k)
        host.table.push_back(speed / k);
      host.max_with_first = host.max_with_last = host.max_with_both = rng() % 4 == 0 ? 8 : 6;
      fleet.hosts.push_back(host);
    }
    fleet.links = matrix;
    fleet.message_bytes = message;
    RoutedInstance table = fleet;
    table.links.reset();
    table.link.assign(n, std::vector<double>(n, 0));
    for (size_t i = 0; i < n; ++i)
      for (size_t j = 0; j < n; ++j)
        if (i != j && (*matrix)[i][j]) table.link[i][j] = (*matrix)[i][j]->bandwidth / message;

    for (size_t i = 0; i < n; ++i)
      for (size_t j = 0; j < n; ++j)
        ASSERT_EQ(fleet.link_at(i, j), table.link_at(i, j)) << round << ": " << i << "-" << j;
    EXPECT_EQ(interchangeable_hosts(fleet), interchangeable_hosts(table)) << round;
    EXPECT_EQ(routed_regions(fleet), routed_regions(table)) << round;
    const std::vector<bool> all(n, true);
    const Chains p = best_pipeline(fleet, all), q = best_pipeline(table, all);
    EXPECT_EQ(p.tokens_per_s, q.tokens_per_s) << round;
    EXPECT_EQ(p.layout, q.layout) << round;
    const Chains r = greedy_replicas(fleet), t = greedy_replicas(table);
    EXPECT_EQ(r.tokens_per_s, t.tokens_per_s) << round;
    EXPECT_EQ(r.layout, t.layout) << round;
    if (round < 20) {  // the fast hosts may have none
      EXPECT_GT(t.tokens_per_s, 0) << round;
    }
    // A subset in another order keeps each pair's link.
    const std::vector<size_t> some = {n - 1, 0, n / 2};
    RoutedInstance sub;
    sub.links_of(fleet, some);
    for (size_t i = 0; i < some.size(); ++i)
      for (size_t j = 0; j < some.size(); ++j)
        EXPECT_EQ(sub.link_at(i, j), table.link_at(some[i], some[j]));
  }
}

}  // namespace
}  // namespace meshplan::routed_flow_test
