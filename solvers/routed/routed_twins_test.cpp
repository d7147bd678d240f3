#include "solvers/routed/routed_twins.hpp"

#include <gtest/gtest.h>

#include "solvers/routed/routed_bounds.hpp"
#include "tests/routed_instances.hpp"

namespace meshplan::routed_twins_test {
namespace {

using testing::routed_host;

// Two regions: a, b, c on fast links; d alone, 10 tokens/s from each of them.
RoutedInstance two_regions() {
  RoutedInstance in;
  in.layers = 8;
  in.hosts = {routed_host("a", {1000, 600, 400}), routed_host("b", {1000, 600, 400}),
              routed_host("c", {800, 450}), routed_host("d", {1000, 600, 400})};
  in.link.assign(4, std::vector<double>(4, 1e6));
  for (size_t i = 0; i < 4; ++i) {
    in.link[i][i] = 0;
    if (i != 3) in.link[i][3] = in.link[3][i] = 10;
  }
  return in;
}

// The same figures, and the same links where they can bind.
bool same(const RoutedInstance& given, const RoutedInstance& expected) {
  const RoutedInstance x = routed_unbound_links(given), y = routed_unbound_links(expected);
  if (x.link != y.link || x.hosts.size() != y.hosts.size()) return false;
  for (size_t i = 0; i < x.hosts.size(); ++i)
    if (x.hosts[i].table != y.hosts[i].table) return false;
  return true;
}

TEST(routed_twins_test, an_instance_without_variants_is_left_as_it_is) {
  const RoutedInstance in = two_regions();
  EXPECT_TRUE(same(routed_without_variants(in), in));
}

TEST(routed_twins_test, a_host_a_little_better_than_its_copy_is_planned_as_the_copy) {
  const RoutedInstance base = two_regions();
  RoutedInstance faster = base;
  for (double& t : faster.hosts[0].table)
    t *= 1.2;
  EXPECT_TRUE(same(routed_without_variants(faster), base));
  RoutedInstance longer = base;
  longer.hosts[1].table.push_back(200);
  EXPECT_TRUE(same(routed_without_variants(longer), base));
  // d is as fast as a and b but on other links: no variant of either.
  RoutedInstance far = base;
  for (double& t : far.hosts[3].table)
    t *= 1.2;
  EXPECT_TRUE(same(routed_without_variants(far), far));
  // Much faster is another machine, not a variant.
  RoutedInstance other = base;
  for (double& t : other.hosts[0].table)
    t *= 2;
  EXPECT_TRUE(same(routed_without_variants(other), other));
  // So is one slower somewhere.
  RoutedInstance mixed = base;
  mixed.hosts[0].table = {1100, 550, 440};
  EXPECT_TRUE(same(routed_without_variants(mixed), mixed));
}

TEST(routed_twins_test, a_faster_link_between_regions_is_planned_as_the_others) {
  const RoutedInstance base = two_regions();
  // From c, which has no copy: twice the others is within four times of them.
  RoutedInstance faster = base;
  faster.link[2][3] = 20;
  EXPECT_TRUE(same(routed_without_variants(faster), base));
  // Five times is a link of its own.
  faster.link[2][3] = 50;
  EXPECT_EQ(routed_without_variants(faster).link[2][3], 50);
  // From a, which b copies, any faster link makes a a variant of b.
  RoutedInstance from_a = base;
  from_a.link[0][3] = 50;
  EXPECT_TRUE(same(routed_without_variants(from_a), base));
  // A link no host can fill is as good as any other, and so is one no flow can: at or above the
  // upper bound.
  RoutedInstance unlimited = base;
  unlimited.link[0][1] = 1e9;
  EXPECT_TRUE(same(routed_without_variants(unlimited), base));
  // c to d at 790 tokens/s: below what either carries at its fastest (800, 1000), above any flow.
  RoutedInstance above_the_bound = base;
  above_the_bound.link[2][3] = 790;
  ASSERT_LT(routed_upper_bound(above_the_bound).tokens_per_s, 790);
  EXPECT_EQ(routed_unbound_links(above_the_bound).link[2][3],
            routed_unbound_links(base).link[0][1]);
}

}  // namespace
}  // namespace meshplan::routed_twins_test
