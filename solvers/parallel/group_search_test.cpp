// The groups a tensor- or expert-parallel search visits beyond the exhaustive size: the first p
// hosts of each ordering, each set once, in the order a plain set of visited groups gives.
#include "solvers/parallel/group_search.hpp"

#include <gtest/gtest.h>

#include <numeric>
#include <random>
#include <set>

namespace meshplan::group_search_test {
namespace {

PlanInputs inputs(size_t n, int min_hosts, int max_hosts) {
  PlanInputs in;
  in.hosts.resize(n);
  in.min_hosts = min_hosts;
  in.max_hosts = max_hosts;
  return in;
}

// What the search visits, by the plain rule: every prefix, sorted, unless visited before.
std::vector<std::vector<size_t>> plainly(const PlanInputs& in,
                                         const std::vector<std::vector<size_t>>& orderings) {
  std::vector<std::vector<size_t>> out;
  std::set<std::vector<size_t>> seen;
  for (const auto& order : orderings)
    for (int p = in.min_hosts; p <= in.max_hosts && p <= static_cast<int>(order.size()); ++p) {
      std::vector<size_t> g(order.begin(), order.begin() + p);
      std::sort(g.begin(), g.end());
      if (seen.insert(g).second) out.push_back(g);
    }
  return out;
}

TEST(group_search_test, prefixes_of_random_orderings_are_visited_once_in_order) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 200; ++trial) {
    const size_t n = kExactPathHosts + 1 + rng() % 40;
    std::vector<std::vector<size_t>> orderings(1 + rng() % 4, std::vector<size_t>(n));
    for (auto& o : orderings) {
      std::iota(o.begin(), o.end(), 0);
      // Mostly the same order with a few swaps, so that many prefixes coincide.
      for (int s = rng() % 4; s > 0; --s)
        std::swap(o[rng() % n], o[rng() % n]);
    }
    const int lo = 1 + static_cast<int>(rng() % 3);
    const PlanInputs in = inputs(n, lo, lo + static_cast<int>(rng() % n));
    std::vector<std::vector<size_t>> visited;
    EXPECT_FALSE(
        for_each_group(in, orderings, [&](const std::vector<size_t>& g) { visited.push_back(g); }));
    ASSERT_EQ(visited, plainly(in, orderings)) << "trial " << trial;
  }
}

TEST(group_search_test, repeated_prefixes_marks_a_prefix_an_earlier_ordering_has) {
  // 0 1 2 3 and 1 0 2 3: the second's first 2, 3 and 4 are the first's; its first 1 is not.
  const auto r = repeated_prefixes({{0, 1, 2, 3}, {1, 0, 2, 3}}, 4);
  EXPECT_EQ(r[0], (std::vector<bool>{false, false, false, false, false}));
  EXPECT_EQ(r[1], (std::vector<bool>{false, false, true, true, true}));
}

TEST(group_search_test, small_candidate_sets_visit_every_subset) {
  const PlanInputs in = inputs(4, 2, 3);
  size_t count = 0;
  EXPECT_TRUE(for_each_group(in, {}, [&](const std::vector<size_t>& g) {
    EXPECT_GE(g.size(), 2u);
    EXPECT_LE(g.size(), 3u);
    ++count;
  }));
  EXPECT_EQ(count, 6u + 4u);  // C(4,2) + C(4,3)
}

}  // namespace
}  // namespace meshplan::group_search_test
