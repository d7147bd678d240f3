// Tensor- and expert-parallel plan files carry every figure their prediction used: recomputing
// token_latency_ms from the JSON alone (shares, expert lists, per-layer figures, the collective)
// gives the same number. Runs the real binary on the 4 x M3 Ultra example.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>

#include "tests/test_support.hpp"

namespace meshplan::parallel_recompute_test {
namespace {

using nlohmann::json;

const std::string kM3 = testing::source_path("examples/clusters/mac-studio-m3-ultra-x4.yaml");

json plan_json(const std::vector<std::string>& extra) {
  std::vector<std::string> args = {"plan", "-c", kM3, "--json"};
  args.insert(args.end(), extra.begin(), extra.end());
  auto r = testing::run_meshplan(args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return r.exit_code == 0 ? json::parse(r.out) : json();
}

double kv_at_context(const json& layer, int64_t context) {
  int64_t tokens = layer.contains("sliding_window")
                       ? std::min<int64_t>(context, layer["sliding_window"].get<int64_t>())
                       : context;
  return layer["kv_bytes_per_token"].get<double>() * static_cast<double>(tokens);
}

// The LM head on every rank (the slowest), the collectives and one overhead.
double fixed_ms(const json& plan) {
  const json& f = plan["figures"];
  double head = 0;
  for (const json& r : plan["ranks"]) {
    head = std::max(
        head,
        std::max(f["head"]["flops"].get<double>() / r["flops_per_s"].get<double>(),
                 f["head"]["read_bytes"].get<double>() / r["bandwidth_bytes_per_s"].get<double>()));
  }
  double collective = plan.contains("collective") ? plan["collective"]["ms"].get<double>() : 0;
  return head * 1e3 + collective + f["stage_overhead_ms"].get<double>();
}

TEST(parallel_recompute_test, tensor_plan_recomputes_from_the_json) {
  json plan = plan_json({"-m", "qwen3-235b-a22b-8bit", "--strategy", "tensor"});
  ASSERT_EQ(plan["strategy"], "tensor");
  ASSERT_EQ(plan["ranks"].size(), 4u);
  const int64_t context = plan["context"].get<int64_t>();
  const json& layers = plan["figures"]["layers"];
  double kv_total = 0;
  for (const json& x : layers)
    kv_total += kv_at_context(x, context);
  // Two all-reduces per layer, each one exchange with every peer on the JACCL mesh:
  // lambda + (p-1) peer + 2 x 2h (p-1) / (p beta).
  const json& c = plan["collective"];
  const double p = 4, h2 = plan["figures"]["activation_bytes"].get<double>();
  const double allreduce_ms =
      (c["latency_us"].get<double>() + (p - 1) * c["peer_us"].get<double>()) / 1e3 +
      2 * h2 * (p - 1) / (p * c["bandwidth_bytes_per_s"].get<double>()) * 1e3;
  EXPECT_NEAR(c["per_layer_ms"].get<double>(), 2 * allreduce_ms, 1e-3);
  double layers_ms = 0;
  for (const json& x : layers) {
    double worst = 0;
    for (const json& r : plan["ranks"]) {
      const double share = r["share"].get<double>();
      const double kv_fraction = r["kv_bytes"].get<double>() / kv_total;
      worst = std::max(worst,
                       std::max(share * x["flops"].get<double>() / r["flops_per_s"].get<double>(),
                                (share * x["read_bytes"].get<double>() +
                                 kv_fraction * kv_at_context(x, context)) /
                                    r["bandwidth_bytes_per_s"].get<double>()));
    }
    layers_ms += worst * 1e3;
  }
  EXPECT_NEAR(layers_ms + fixed_ms(plan), plan["predicted"]["token_latency_ms"].get<double>(),
              2e-3);
}

TEST(parallel_recompute_test, expert_plan_recomputes_from_the_json) {
  json plan = plan_json({"-m", "deepseek-v3.1-4bit", "--strategy", "expert"});
  ASSERT_EQ(plan["strategy"], "expert");
  const int64_t context = plan["context"].get<int64_t>();
  const json& layers = plan["figures"]["layers"];
  double layers_ms = 0;
  for (size_t l = 0; l < layers.size(); ++l) {
    const json& x = layers[l];
    const double kv = kv_at_context(x, context);
    double worst = 0;
    if (!x.contains("experts")) {  // dense: every rank runs it
      for (const json& r : plan["ranks"]) {
        worst = std::max(worst, std::max(x["flops"].get<double>() / r["flops_per_s"].get<double>(),
                                         (x["read_bytes"].get<double>() + kv) /
                                             r["bandwidth_bytes_per_s"].get<double>()));
      }
    } else {
      // Uniform load, spread evenly over an expert's copies.
      const double E = x["experts"].get<double>(), K = x["experts_per_token"].get<double>();
      std::map<int, int> copies;
      for (const json& r : plan["ranks"])
        for (int e : r["experts"][l])
          ++copies[e];
      EXPECT_EQ(copies.size(), static_cast<size_t>(E)) << "layer " << l;
      for (const json& r : plan["ranks"]) {
        const double F = r["flops_per_s"].get<double>(),
                     BW = r["bandwidth_bytes_per_s"].get<double>();
        double load = 0;
        for (int e : r["experts"][l])
          load += 1 / E / copies[e];
        const double base =
            std::max((x["flops"].get<double>() - K * x["expert_flops"].get<double>()) / F,
                     (x["non_expert_bytes"].get<double>() + kv) / BW);
        const double expert =
            std::max(x["expert_flops"].get<double>() / F, x["expert_bytes"].get<double>() / BW);
        worst = std::max(worst, base + K * load * expert);
      }
    }
    layers_ms += worst * 1e3;
  }
  EXPECT_NEAR(layers_ms + fixed_ms(plan), plan["predicted"]["token_latency_ms"].get<double>(),
              2e-3);
}

}  // namespace
}  // namespace meshplan::parallel_recompute_test
