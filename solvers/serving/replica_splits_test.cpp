#include "solvers/serving/replica_splits.hpp"

#include <gtest/gtest.h>

#include <functional>
#include <random>

namespace meshplan::replica_splits_test {
namespace {

// The most `hosts` hosts serve in groups of the given sizes (any number of each, hosts may stay
// idle), by trying every count of every size.
double brute_force(size_t hosts, const std::vector<size_t>& sizes,
                   const std::vector<double>& values, size_t i = 0) {
  if (i == sizes.size()) return 0;
  double best = 0;
  for (size_t k = 0; k * sizes[i] <= hosts; ++k)
    best = std::max(best, static_cast<double>(k) * std::max(values[i], 0.0) +
                              brute_force(hosts - k * sizes[i], sizes, values, i + 1));
  return best;
}

TEST(replica_splits_test, group_sizes_are_the_best_mix_of_the_sizes_planned) {
  std::mt19937_64 rng(5);
  for (int t = 0; t < 300; ++t) {
    const size_t hosts = std::uniform_int_distribution<size_t>(0, 40)(rng);
    std::vector<size_t> sizes;
    std::vector<double> values;
    const size_t kinds = std::uniform_int_distribution<size_t>(1, 4)(rng);
    for (size_t k = 0; k < kinds; ++k) {
      sizes.push_back(std::uniform_int_distribution<size_t>(1, 9)(rng));
      // Values per group that grow less than the hosts, more, or not at all (no copy: -1).
      values.push_back(std::uniform_int_distribution<int>(0, 5)(rng) == 0
                           ? -1
                           : std::uniform_real_distribution<double>(1, 100)(rng));
    }
    const std::vector<size_t> got = best_group_sizes(hosts, sizes, values);
    double total = 0;
    size_t used = 0;
    for (size_t g : got) {
      const auto at = std::find(sizes.begin(), sizes.end(), g);
      ASSERT_NE(at, sizes.end()) << "a group of a size not planned: " << g;
      double v = -1;  // the best value of that size (sizes may repeat)
      for (size_t i = 0; i < sizes.size(); ++i)
        if (sizes[i] == g) v = std::max(v, values[i]);
      ASSERT_GT(v, 0) << "a group of a size that holds no copy: " << g;
      total += v;
      used += g;
    }
    EXPECT_LE(used, hosts) << "instance " << t;
    EXPECT_NEAR(total, brute_force(hosts, sizes, values), 1e-9 * (1 + total)) << "instance " << t;
    EXPECT_TRUE(std::is_sorted(got.rbegin(), got.rend())) << "largest first";
  }
}

TEST(replica_splits_test, no_size_that_holds_a_copy_gives_no_groups) {
  EXPECT_TRUE(best_group_sizes(10, {3, 4}, {-1, 0}).empty());
  EXPECT_TRUE(best_group_sizes(2, {3}, {5}).empty());  // too few hosts
  EXPECT_EQ(best_group_sizes(7, {3}, {5}), (std::vector<size_t>{3, 3}));
}

TEST(replica_splits_test, sizes_run_from_the_fewest_then_double) {
  EXPECT_EQ(replica_sizes(4, 1000, 126), (std::vector<size_t>{4, 5, 6, 7, 8, 9, 18, 36, 72}));
  EXPECT_EQ(replica_sizes(1, 1000, 126), (std::vector<size_t>{1, 2, 3, 6, 12, 24, 48, 96}));
  // No more than the hosts of the kind, nor the most a group may take.
  EXPECT_EQ(replica_sizes(4, 6, 126), (std::vector<size_t>{4, 5, 6}));
  EXPECT_EQ(replica_sizes(4, 100, 5), (std::vector<size_t>{4, 5}));
  EXPECT_TRUE(replica_sizes(8, 6, 126).empty());
  EXPECT_EQ(replica_sizes(0, 3, 126), (std::vector<size_t>{1, 2, 3}));
}

TEST(replica_splits_test, balanced_groups_hold_about_the_same_memory) {
  const std::vector<double> memory{512, 192, 128, 64, 64, 64};
  const std::vector<size_t> by_memory{0, 1, 2, 3, 4, 5};
  const auto groups = balanced_groups(by_memory, memory, 2);
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_EQ(groups[0], (std::vector<size_t>{0}));
  EXPECT_EQ(groups[1], (std::vector<size_t>{1, 2, 3, 4, 5}));
}

TEST(replica_splits_test, the_exact_partition_weighs_every_split) {
  // Four hosts; a group holds a copy with two hosts or more, valued at its size squared (larger
  // groups serve more per host), except hosts 0 and 1 together (0) and hosts 0 and 3 (1): of the
  // splits into two groups or more, {0, 2} and {1, 3} serve the most (8).
  const GroupValues value = [](const std::vector<size_t>& m) -> std::vector<double> {
    if (m.size() < 2) return {};
    if (m.size() == 2 && m[0] == 0 && m[1] == 1) return {0};
    if (m.size() == 2 && m[0] == 0 && m[1] == 3) return {1};
    return {static_cast<double>(m.size() * m.size())};
  };
  auto split = best_partition(4, 0, value);
  ASSERT_EQ(split.size(), 2u);
  for (auto& g : split)
    std::sort(g.begin(), g.end());
  std::sort(split.begin(), split.end());
  EXPECT_EQ(split, (std::vector<std::vector<size_t>>{{0, 2}, {1, 3}}));
}

}  // namespace
}  // namespace meshplan::replica_splits_test
