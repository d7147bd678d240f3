// mlx-lm's equal split (even_split.hpp) against trying every set of hosts and every order.
#include "solvers/pipeline/even_split.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "tests/random_pipeline.hpp"

namespace meshplan::even_split_test {
namespace {

using testing::random_pipeline;
using testing::RandomPipeline;

TEST(even_split_test, equal_split_is_the_first_best_of_every_set_and_order) {
  // mlx-lm's equal split against trying every set of hosts (in the order of their masks) and
  // every order of it (rotations beyond six hosts), keeping the first best: the same hosts in
  // the same order, on instances where some hosts are copies of others and some links missing.
  int feasible = 0;
  for (uint64_t seed = 1; seed <= 150; ++seed) {
    const RandomPipeline in = random_pipeline(seed, 8, 12, false);
    const PipelineCostModel& cost = *in.cost;
    const size_t n = cost.num_hosts();
    const int L = cost.num_layers();
    double best = std::numeric_limits<double>::infinity();
    std::vector<size_t> best_order;
    auto try_order = [&](const std::vector<size_t>& order, int per) {
      PipelineAssignment a;
      a.order = order;
      for (size_t j = 0; j <= order.size(); ++j)
        a.cuts.push_back(static_cast<int>(j) * per);
      for (size_t j = 0; j < order.size(); ++j)
        if (cost.stage_memory(a.cuts[j], a.cuts[j + 1], true) > cost.host(order[j]).usable_bytes)
          return;
      const PipelineEvaluation e = cost.evaluate(a);
      if (e.feasible && e.token_latency_s < best) {
        best = e.token_latency_s;
        best_order = order;
      }
    };
    for (size_t k = 1; k <= n; ++k) {
      if (L % static_cast<int>(k) != 0) continue;
      std::vector<bool> pick(n, false);
      std::fill(pick.begin(), pick.begin() + static_cast<std::ptrdiff_t>(k), true);
      do {
        std::vector<size_t> set;
        for (size_t i = 0; i < n; ++i)
          if (pick[i]) set.push_back(i);
        if (k <= 6) {
          do
            try_order(set, L / static_cast<int>(k));
          while (std::next_permutation(set.begin(), set.end()));
        } else {
          for (size_t r = 0; r < k; ++r) {
            try_order(set, L / static_cast<int>(k));
            std::rotate(set.begin(), set.begin() + 1, set.end());
          }
        }
      } while (std::prev_permutation(pick.begin(), pick.end()));
    }
    const EvenSplitResult got = best_even_split(cost, {});
    ASSERT_EQ(got.feasible, std::isfinite(best)) << in.describe;
    if (!got.feasible) continue;
    ++feasible;
    EXPECT_EQ(got.assignment.order, best_order) << in.describe;
    EXPECT_EQ(cost.evaluate(got.assignment).token_latency_s, best) << in.describe;
  }
  EXPECT_GT(feasible, 50);
}

}  // namespace
}  // namespace meshplan::even_split_test
