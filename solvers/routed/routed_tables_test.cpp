#include "solvers/routed/routed_tables.hpp"

#include <gtest/gtest.h>

#include "tests/routed_instances.hpp"

namespace meshplan::routed_tables_test {
namespace {

using testing::routed_host;

// Three hosts over three layers; a's links carry 3 tokens/s in (1 + 2) and 7 out (3 + 4).
RoutedInstance three_hosts() {
  RoutedInstance in;
  in.layers = 3;
  in.hosts = {routed_host("a", {50, 40, 30}), routed_host("b", {20}), routed_host("c", {20})};
  in.link = {{0, 3, 4}, {1, 0, 100}, {2, 100, 0}};
  return in;
}

TEST(routed_tables_test, a_host_carries_no_more_than_its_links_unless_it_holds_every_layer) {
  const RoutedInstance capped = link_capped(three_hosts());
  // a holding one or two layers may hold the first (links out: 7) or the last (links in: 3).
  EXPECT_EQ(capped.hosts[0].table, (std::vector<double>{7, 7, 30}));
  // b and c: one layer, links of 101 and 102 each way, above their 20 tokens/s.
  EXPECT_EQ(capped.hosts[1].table, (std::vector<double>{20}));
  EXPECT_EQ(capped.hosts[2].table, (std::vector<double>{20}));
}

TEST(routed_tables_test, where_memory_leaves_no_end_the_lesser_link_side_caps) {
  RoutedInstance in = three_hosts();
  in.hosts[0].max_with_first = 0;  // a cannot hold the embedding beside a layer: in, or between
  EXPECT_EQ(link_capped(in).hosts[0].table, (std::vector<double>{3, 3, 30}));
  in.hosts[0].max_with_last = 0;  // nor the LM head: only between, min(3, 7)
  EXPECT_EQ(link_capped(in).hosts[0].table, (std::vector<double>{3, 3, 30}));
  in.hosts[0].max_with_first = 1;  // the first layer alone: out for one layer
  EXPECT_EQ(link_capped(in).hosts[0].table, (std::vector<double>{7, 3, 30}));
}

TEST(routed_tables_test, the_last_place_cap_leaves_room_for_the_lm_head) {
  RoutedInstance in = three_hosts();
  in.hosts[0].max_with_first = 0;
  in.hosts[0].head_s = 0.1;
  const RoutedInstance capped = link_capped(in);
  // The cap c is where c slowed by the head is the 3 tokens/s the links bring: 1 / (1/3 - 0.1).
  const double c = 1 / (1.0 / 3 - 0.1);
  EXPECT_NEAR(capped.hosts[0].table[0], c, 1e-12);
  EXPECT_NEAR(with_head(capped.hosts[0], c), 3, 1e-12);
  EXPECT_NEAR(range_capacity(capped, 0, {1, 3}), 3, 1e-12);
}

// A fast link to a slow host brings no more than that host carries.
TEST(routed_tables_test, a_link_carries_no_more_than_the_host_at_its_other_end) {
  RoutedInstance in;
  in.layers = 3;
  in.hosts = {routed_host("a", {50, 40, 30}), routed_host("b", {5, 4})};
  in.link = {{0, 1000}, {1000, 0}};
  EXPECT_EQ(link_capped(in).hosts[0].table, (std::vector<double>{5, 5, 30}));
  EXPECT_EQ(link_capped(in).hosts[1].table, (std::vector<double>{5, 4}));
}

TEST(routed_tables_test, no_links_or_fast_links_cap_nothing) {
  RoutedInstance in = three_hosts();
  in.link.clear();
  EXPECT_EQ(link_capped(in).hosts[0].table, (std::vector<double>{50, 40, 30}));
  in = three_hosts();
  for (auto& row : in.link)
    for (double& l : row)
      if (l > 0) l = 1000;
  // b and c each bring and take 20 at most: 40 in all, below a's 50 for one layer.
  EXPECT_EQ(link_capped(in).hosts[0].table, (std::vector<double>{40, 40, 30}));
  in.hosts[1].table = in.hosts[2].table = {100};
  EXPECT_EQ(link_capped(in).hosts[0].table, (std::vector<double>{50, 40, 30}));
}

// The caps keep the bounds above every layout's flow: on every layout of three hosts over three
// layers, each cap at its tightest, the capped tables without links carry at least what the
// original carries on its links.
TEST(routed_tables_test, no_layout_carries_more_than_the_capped_tables_without_links) {
  RoutedInstance in = three_hosts();
  in.hosts[0].head_s = 0.1;
  in.hosts[1].table = {20, 6};
  in.hosts[2].table = {20, 6};
  RoutedInstance capped = link_capped(in);
  capped.link.clear();
  RoutedInstance tables_alone = in;
  tables_alone.link.clear();
  std::vector<LayerRange> ranges = {{0, 0}};
  for (int s = 0; s < in.layers; ++s)
    for (int e = s + 1; e <= in.layers; ++e)
      ranges.push_back({s, e});
  int binding = 0;
  for (const LayerRange& a : ranges)
    for (const LayerRange& b : ranges)
      for (const LayerRange& c : ranges) {
        const RoutedLayout layout = {a, b, c};
        const double real = routed_max_flow(in, layout).total;
        const double bound = routed_max_flow(capped, layout).total;
        EXPECT_GE(bound, real * (1 - 1e-12)) << a.start << "-" << a.end << " " << b.start << "-"
                                             << b.end << " " << c.start << "-" << c.end;
        binding += bound < routed_max_flow(tables_alone, layout).total - 1e-9;
      }
  EXPECT_GT(binding, 0) << "some layout is held below what the tables alone would give";
}

}  // namespace
}  // namespace meshplan::routed_tables_test
