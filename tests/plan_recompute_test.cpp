// The plan file carries every figure its prediction used: recomputing token_latency_ms from the
// JSON alone, with the formulas of SPEC section 7, gives the same number. Runs the real binary on
// the 4 x M3 Ultra example and on the 5-node Ethernet example with DeepSeek-V3.1 (4-bit), which
// fits the Ethernet cluster only across several hosts (2 x 192 + 2 x 128 + 64 GiB).
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "tests/test_support.hpp"

namespace meshplan::plan_recompute_test {
namespace {

using nlohmann::json;

// SPEC section 7, from the plan file only.
double recompute_token_ms(const json& plan) {
  const json& f = plan["figures"];
  const int64_t context = plan["context"].get<int64_t>();
  const double overhead_ms = f["stage_overhead_ms"].get<double>();
  const double activation = f["activation_bytes"].get<double>();
  const json& layers = f["layers"];
  double total_ms = 0;
  const json& ranks = plan["ranks"];
  for (const json& r : ranks) {
    const double bw = r["bandwidth_bytes_per_s"].get<double>();
    const double F = r["flops_per_s"].get<double>();
    double stage_s = 0;
    for (int l = r["layers"][0].get<int>(); l < r["layers"][1].get<int>(); ++l) {
      const json& x = layers[static_cast<size_t>(l)];
      int64_t tokens = x.contains("sliding_window")
                           ? std::min<int64_t>(context, x["sliding_window"].get<int64_t>())
                           : context;
      double kv = x["kv_bytes_per_token"].get<double>() * static_cast<double>(tokens);
      stage_s += std::max(x["flops"].get<double>() / F, (x["read_bytes"].get<double>() + kv) / bw);
    }
    total_ms += stage_s * 1e3 + overhead_ms;
    if (ranks.size() >= 2) {
      const json& hop = r["hop_to_next"];
      EXPECT_FALSE(hop.is_null()) << r["host"];
      total_ms += hop["latency_us"].get<double>() / 1e3 +
                  activation / hop["bandwidth_bytes_per_s"].get<double>() * 1e3;
    }
  }
  const json& r0 = ranks[0];
  total_ms +=
      std::max(f["head"]["flops"].get<double>() / r0["flops_per_s"].get<double>(),
               f["head"]["read_bytes"].get<double>() / r0["bandwidth_bytes_per_s"].get<double>()) *
      1e3;
  return total_ms;
}

void check_recomputes(const std::string& cluster, size_t min_ranks) {
  auto r = testing::run_meshplan({"plan", "-c", testing::source_path(cluster), "-m",
                                  "deepseek-v3.1-4bit", "--strategy", "pipeline", "--engine",
                                  "llama-rpc", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json plan = json::parse(r.out);
  ASSERT_GE(plan["ranks"].size(), min_ranks) << cluster;
  double predicted = plan["predicted"]["token_latency_ms"].get<double>();
  double by_hand = recompute_token_ms(plan);
  // The file rounds times to 1 us and figures to 7 significant digits.
  EXPECT_NEAR(by_hand, predicted, 2e-3 + 1e-6 * predicted) << cluster;
  // Every rank's figures match the candidate host's entry, and its memory fits.
  for (const json& rank : plan["ranks"]) {
    auto host = std::find_if(plan["hosts"].begin(), plan["hosts"].end(),
                             [&](const json& h) { return h["name"] == rank["host"]; });
    ASSERT_NE(host, plan["hosts"].end()) << rank["host"];
    EXPECT_TRUE((*host)["used"].get<bool>());
    EXPECT_EQ((*host)["bandwidth_bytes_per_s"], rank["bandwidth_bytes_per_s"]);
    EXPECT_EQ((*host)["flops_per_s"], rank["flops_per_s"]);
    EXPECT_LE(rank["total_bytes"].get<double>(), rank["usable_bytes"].get<double>());
  }
  EXPECT_LE(plan["bound"]["token_latency_ms"].get<double>(), predicted);
  EXPECT_EQ(plan["solver"]["name"], "optimal");
  EXPECT_TRUE(plan["solver"]["optimal"].get<bool>());
}

TEST(plan_recompute_test, m3_ultra_mesh_prediction_recomputes_from_the_json) {
  check_recomputes("examples/clusters/mac-studio-m3-ultra-x4.yaml", 1);
}

TEST(plan_recompute_test, ethernet_five_node_prediction_recomputes_from_the_json) {
  // 351.8 GiB of DeepSeek-V3.1 4-bit needs at least 3 of the 5 hosts (163 + 163 + 109 GiB usable).
  check_recomputes("examples/clusters/ethernet-5-node.yaml", 3);
}

TEST(plan_recompute_test, multi_rank_ring_recomputes_including_hops) {
  // Force a ring over all four M3 Ultra so that hops and several ranks enter the sum.
  auto r = testing::run_meshplan(
      {"plan", "-c", testing::source_path("examples/clusters/mac-studio-m3-ultra-x4.yaml"), "-m",
       "deepseek-v3.1-4bit", "--strategy", "pipeline", "--min-hosts", "4", "--engine", "llama-rpc",
       "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json plan = json::parse(r.out);
  ASSERT_EQ(plan["ranks"].size(), 4u);
  EXPECT_NEAR(recompute_token_ms(plan), plan["predicted"]["token_latency_ms"].get<double>(), 2e-3);
}

}  // namespace
}  // namespace meshplan::plan_recompute_test

namespace meshplan::plan_recompute_test {
namespace {

// mlx-lm's own split (--engine mlx-lm): Llama 3.3 70B has 80 layers, so 4 ranks hold 20 each
// (mlx_lm/models/pipeline.py), every rank loads the embedding and LM head, and the prediction
// is the same formulas over those ranges.
TEST(plan_recompute_test, mlx_lm_even_split_prediction_is_the_hand_computation) {
  auto r = testing::run_meshplan({"plan", "-c",
                                  testing::source_path("examples/clusters/mac-mini-m4-pro-x4.yaml"),
                                  "-m", "llama-3.3-70b-8bit", "--strategy", "pipeline", "--engine",
                                  "mlx-lm", "--min-hosts", "4", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json plan = json::parse(r.out);
  EXPECT_EQ(plan["engine"], "mlx-lm");
  EXPECT_EQ(plan["solver"]["name"], "even");
  ASSERT_EQ(plan["ranks"].size(), 4u);
  for (size_t j = 0; j < 4; ++j) {
    EXPECT_EQ(plan["ranks"][j]["layers"][0].get<int>(), static_cast<int>(j) * 20);
    EXPECT_EQ(plan["ranks"][j]["layers"][1].get<int>(), static_cast<int>(j + 1) * 20);
  }
  const double predicted = plan["predicted"]["token_latency_ms"].get<double>();
  EXPECT_NEAR(recompute_token_ms(plan), predicted, 2e-3 + 1e-6 * predicted);
  // Equal ranges on equal Minis: every rank holds the same weights, the head included.
  const double w0 = plan["ranks"][0]["weight_bytes"].get<double>();
  for (const json& rank : plan["ranks"])
    EXPECT_NEAR(rank["weight_bytes"].get<double>(), w0, 1e-6 * w0) << rank["host"];
}

// 61 layers (DeepSeek-V3.1) divide over no number of Studios but one, and one holds it only at 4
// bits: mlx-lm runs no pipeline there, and says why instead of planning one it would run wrongly.
TEST(plan_recompute_test, mlx_lm_refuses_a_split_that_leaves_layers_on_no_rank) {
  auto r = testing::run_meshplan(
      {"plan", "-c", testing::source_path("examples/clusters/mac-studio-m3-ultra-x4.yaml"), "-m",
       "deepseek-v3.1-8bit", "--strategy", "pipeline", "--engine", "mlx-lm"});
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_NE(r.err.find("mlx-lm's equal split of 61 layers runs on 1 host(s) here"),
            std::string::npos)
      << r.err;
}

}  // namespace
}  // namespace meshplan::plan_recompute_test
