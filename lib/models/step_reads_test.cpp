#include "lib/models/step_reads.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>
#include <vector>

#include "lib/models/model_catalog.hpp"

namespace meshplan::step_reads_test {
namespace {

// The expected union of N tokens' K-of-E picks, against a count by simulation.
TEST(step_reads_test, distinct_experts_match_a_simulation_of_uniform_routing) {
  EXPECT_DOUBLE_EQ(distinct_experts(128, 8, 1), 8);
  EXPECT_NEAR(distinct_experts(128, 8, 2), 8 + 8 * (1 - 8.0 / 128), 1e-9);
  EXPECT_NEAR(distinct_experts(128, 8, 4096), 128, 1e-6);
  std::mt19937 rng(7);
  for (int tokens : {2, 4, 16, 32}) {
    double total = 0;
    const int trials = 4000;
    std::vector<int> ids(128);
    for (int i = 0; i < 128; ++i)
      ids[static_cast<size_t>(i)] = i;
    for (int t = 0; t < trials; ++t) {
      std::set<int> seen;
      for (int k = 0; k < tokens; ++k) {
        std::shuffle(ids.begin(), ids.end(), rng);
        seen.insert(ids.begin(), ids.begin() + 8);
      }
      total += static_cast<double>(seen.size());
    }
    EXPECT_NEAR(distinct_experts(128, 8, tokens), total / trials, 0.5) << tokens;
  }
}

// A dense layer reads its weights once whatever the streams; an MoE layer reads one stream's
// experts for one stream and all its experts at most.
TEST(step_reads_test, a_step_reads_the_union_of_its_streams_experts) {
  const ModelDesc dense = ModelCatalog::builtin().resolve("llama-3.1-8b-4bit", "");
  const LayerInfo& d = dense.layers.at(3);
  EXPECT_DOUBLE_EQ(step_read_bytes(d, 32), static_cast<double>(d.read_bytes));

  const ModelDesc moe = ModelCatalog::builtin().resolve("qwen3-30b-a3b-4bit", "");
  const LayerInfo& l = moe.layers.at(3);
  ASSERT_TRUE(l.moe);
  const MoeLayerInfo& m = *l.moe;
  EXPECT_EQ(m.experts, 128);
  EXPECT_EQ(m.experts_per_token, 8);
  EXPECT_DOUBLE_EQ(step_read_bytes(l, 1), static_cast<double>(l.read_bytes));
  const double all = static_cast<double>(m.non_expert_bytes + m.experts * m.expert_bytes);
  double last = static_cast<double>(l.read_bytes);
  for (int n : {2, 4, 8, 32, 512}) {
    const double r = step_read_bytes(l, n);
    EXPECT_GT(r, last) << n;
    EXPECT_LE(r, all * (1 + 1e-12)) << n;
    last = r;
  }
  // Four streams read about 29 distinct experts of 128, not 8 and not 32.
  EXPECT_NEAR((step_read_bytes(l, 4) - static_cast<double>(m.non_expert_bytes)) /
                  static_cast<double>(m.expert_bytes),
              29.2, 0.1);
}

}  // namespace
}  // namespace meshplan::step_reads_test
