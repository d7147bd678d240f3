// The hosts a faster pipeline may use, against every pipeline of small random instances: a host
// left out is in no pipeline faster than the known one, and the known one is a pipeline the cost
// model accepts, at least as fast as the fastest host alone.
#include "solvers/pipeline/faster_pipeline_hosts.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <limits>

#include "tests/random_pipeline.hpp"

namespace meshplan::faster_pipeline_hosts_test {
namespace {

constexpr double kNone = std::numeric_limits<double>::infinity();

// Per host, the fastest feasible pipeline holding it (every ordered set of hosts, every split).
std::vector<double> fastest_with_each_host(const PipelineCostModel& cost) {
  const size_t n = cost.num_hosts();
  const int L = cost.num_layers();
  std::vector<double> best(n, kNone);
  PipelineAssignment a{{}, {0}};
  std::vector<bool> used(n, false);
  std::function<void()> extend = [&] {
    const int start = a.cuts.back();
    for (size_t h = 0; h < n; ++h) {
      if (used[h]) continue;
      for (int end = start + 1; end <= L; ++end) {
        used[h] = true;
        a.order.push_back(h);
        a.cuts.push_back(end);
        if (end == L) {
          const PipelineEvaluation e = cost.evaluate(a);
          if (e.feasible)
            for (size_t r : a.order)
              best[r] = std::min(best[r], e.token_latency_s);
        } else {
          extend();
        }
        a.cuts.pop_back();
        a.order.pop_back();
        used[h] = false;
      }
    }
  };
  extend();
  return best;
}

TEST(faster_pipeline_hosts_test, a_host_left_out_is_in_no_faster_pipeline) {
  int known = 0, left_out = 0, several = 0;
  for (uint64_t seed = 1; seed <= 300; ++seed) {
    const testing::RandomPipeline in = testing::random_pipeline(seed, 5, 6, false, seed % 4 == 0);
    const PipelineCostModel& cost = *in.cost;
    const std::optional<KnownPipeline> fast = fast_known_pipeline(cost);
    const std::vector<double> with = fastest_with_each_host(cost);
    const double optimum = *std::min_element(with.begin(), with.end());
    if (!fast) {
      // Nothing known: then no host holds the whole model alone.
      for (size_t h = 0; h < cost.num_hosts(); ++h)
        EXPECT_GT(cost.stage_memory(0, cost.num_layers(), true), cost.host(h).usable_bytes)
            << in.describe;
      continue;
    }
    ++known;
    several += fast->assignment.order.size() > 1;
    const PipelineEvaluation e = cost.evaluate(fast->assignment);
    ASSERT_TRUE(e.feasible) << in.describe << ": " << e.shortfall;
    EXPECT_DOUBLE_EQ(e.token_latency_s, fast->latency_s) << in.describe;
    EXPECT_LE(optimum, fast->latency_s * (1 + 1e-12)) << in.describe;
    for (size_t h = 0; h < cost.num_hosts(); ++h)
      if (cost.stage_memory(0, cost.num_layers(), true) <= cost.host(h).usable_bytes) {
        PipelineAssignment alone{{h}, {0, cost.num_layers()}};
        EXPECT_LE(fast->latency_s, cost.evaluate(alone).token_latency_s * (1 + 1e-12))
            << in.describe << ": host " << h << " alone is faster";
      }

    const std::vector<size_t> kept = hosts_a_faster_pipeline_may_use(cost, fast->latency_s);
    for (size_t h = 0; h < cost.num_hosts(); ++h) {
      if (std::find(kept.begin(), kept.end(), h) != kept.end()) continue;
      ++left_out;
      EXPECT_GE(with[h], fast->latency_s * (1 - 1e-9))
          << in.describe << ": host " << h << " was left out but is in a faster pipeline";
    }
    // With room for one rank only, the known pipeline is a host alone.
    if (const std::optional<KnownPipeline> alone = fast_known_pipeline(cost, 1)) {
      EXPECT_EQ(alone->assignment.order.size(), 1u) << in.describe;
    }
    // The known pipeline's own hosts can always be searched.
    for (size_t h : fast->assignment.order)
      EXPECT_NE(std::find(kept.begin(), kept.end(), h), kept.end()) << in.describe;
  }
  // The property is exercised: pipelines known, of several hosts too, and hosts left out.
  EXPECT_GT(known, 100);
  EXPECT_GT(several, 10);
  EXPECT_GT(left_out, 50);
}

}  // namespace
}  // namespace meshplan::faster_pipeline_hosts_test
