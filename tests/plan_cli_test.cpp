// `meshplan plan` with the optimal solver, as a user runs it: host selection, pins, host-count
// limits, baselines and the infeasible cases (exit 1 with the fix, exit 2 for bad options).
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "tests/test_support.hpp"

namespace meshplan {
namespace {

using nlohmann::json;
using testing::run_meshplan;
using testing::source_path;

const std::string kM3 = source_path("examples/clusters/mac-studio-m3-ultra-x4.yaml");
const std::string kEth = source_path("examples/clusters/ethernet-5-node.yaml");

json plan_json(const std::vector<std::string>& extra) {
  std::vector<std::string> args = {"plan", "--json", "--strategy", "pipeline"};
  args.insert(args.end(), extra.begin(), extra.end());
  auto r = run_meshplan(args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return r.exit_code == 0 ? json::parse(r.out) : json();
}

TEST(plan_cli_test, optimal_is_default_and_beats_the_proportional_split) {
  json p = plan_json({"-c", kEth, "-m", "llama-3.3-70b-4bit"});
  EXPECT_EQ(p["solver"]["name"], "optimal");
  EXPECT_TRUE(p["solver"]["optimal"].get<bool>());
  // 37 GiB fit on one M2 Ultra: the fastest single host, the others left out.
  ASSERT_EQ(p["ranks"].size(), 1u);
  EXPECT_EQ(p["baselines"][0]["solver"], "proportional");
  EXPECT_EQ(p["baselines"][0]["hosts"].size(), 5u);
  EXPECT_GT(p["baselines"][0]["speedup"].get<double>(), 1.0);
  EXPECT_EQ(p["baselines"][1]["solver"], "single-host");
  EXPECT_NEAR(p["baselines"][1]["speedup"].get<double>(), 1.0, 1e-9);
  int used = 0;
  for (const auto& h : p["hosts"])
    used += h["used"].get<bool>();
  EXPECT_EQ(used, 1);
  EXPECT_EQ(p["hosts"].size(), 5u);
  EXPECT_LE(p["bound"]["token_latency_ms"].get<double>(),
            p["predicted"]["token_latency_ms"].get<double>());
  // The proportional solver is still there and is never faster.
  json q = plan_json({"-c", kEth, "-m", "llama-3.3-70b-4bit", "--solver", "proportional"});
  EXPECT_EQ(q["ranks"].size(), 5u);
  EXPECT_GE(q["predicted"]["token_latency_ms"].get<double>(),
            p["predicted"]["token_latency_ms"].get<double>());
  EXPECT_FALSE(q["solver"]["optimal"].get<bool>());
}

TEST(plan_cli_test, table_shows_bound_baselines_and_proof) {
  auto r = run_meshplan({"plan", "-c", kEth, "-m", "deepseek-v3.1-4bit", "--strategy", "pipeline"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Lower bound:"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Baseline proportional:"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Baseline single-host: not feasible (no host holds the whole model"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("(proven optimal)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("left out:"), std::string::npos) << r.out;
}

TEST(plan_cli_test, pins_and_host_limits_are_honoured) {
  json p = plan_json({"-c", kEth, "-m", "llama-3.3-70b-4bit", "--pin", "mini-m4-pro=10-20"});
  bool found = false;
  for (const auto& r : p["ranks"]) {
    if (r["host"] != "mini-m4-pro") continue;
    found = true;
    EXPECT_EQ(r["layers"][0], 10);
    EXPECT_EQ(r["layers"][1], 21);
  }
  EXPECT_TRUE(found);
  json q = plan_json({"-c", kM3, "-m", "deepseek-v3.1-4bit", "--min-hosts", "3"});
  EXPECT_EQ(q["ranks"].size(), 3u);
  json s = plan_json({"-c", kEth, "-m", "deepseek-v3.1-4bit", "--max-hosts", "3", "--hosts",
                      "mini-m4-pro,mbp-m3-max,mbp-m4-max,studio-1,studio-2"});
  EXPECT_LE(s["ranks"].size(), 3u);
}

TEST(plan_cli_test, infeasible_requests_exit_1_with_the_fix) {
  auto r = run_meshplan({"plan", "-c", kEth, "-m", "deepseek-v3.1-4bit", "--max-hosts", "2"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("allow --max-hosts 3"), std::string::npos) << r.err;
  r = run_meshplan({"plan", "-c", kEth, "-m", "deepseek-v3.1-4bit", "--pin", "mini-m4-pro=0-20"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("mini-m4-pro needs"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("GiB short"), std::string::npos) << r.err;
  r = run_meshplan({"plan", "-c", kEth, "-m", "llama-3.1-405b-8bit", "--hosts",
                    "studio-1,studio-2,mbp-m3-max", "--context", "128k"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("a context of at most"), std::string::npos) << r.err;
}

TEST(plan_cli_test, bad_pins_and_limits_exit_2) {
  for (std::vector<std::string> extra : std::vector<std::vector<std::string>>{
           {"--pin", "nobody=0-3"},
           {"--pin", "studio-1=0-200"},
           {"--pin", "studio-1=0-10", "--pin", "studio-2=5-20"},
           {"--min-hosts", "4", "--max-hosts", "2"},
           {"--min-hosts", "9"},
           {"--pin", "studio-1=0-10", "--solver", "proportional"}}) {
    std::vector<std::string> args = {"plan", "-c", kEth, "-m", "llama-3.3-70b-4bit"};
    args.insert(args.end(), extra.begin(), extra.end());
    auto r = run_meshplan(args);
    EXPECT_EQ(r.exit_code, 2) << ::testing::PrintToString(extra) << ": " << r.err;
  }
}

TEST(plan_cli_test, bench_quick_finds_no_violation) {
  auto r =
      run_meshplan({"bench", "--quick", "--families", "two-tier,daisy-chain", "--sizes", "3,13"});
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_NE(r.out.find("two-tier"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("No violations"), std::string::npos) << r.out;
  r = run_meshplan({"bench", "--families", "moon-base"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
}

// A typo in the model or an option is reported before the cluster file is read: it does not wait
// for a large cluster, and is the error the user sees even when the cluster is broken too.
TEST(plan_cli_test, cheap_arguments_are_checked_before_the_cluster_is_read) {
  std::string broken = testing::temp_dir() + "/broken.yaml";
  { std::ofstream(broken) << "hosts: [\n"; }
  auto r = run_meshplan({"plan", "-c", broken, "-m", "lama-3.3-70b-4bit"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("unknown model \"lama-3.3-70b-4bit\""), std::string::npos) << r.err;
  r = run_meshplan({"plan", "-c", broken, "-m", "llama-3.3-70b-4bit", "--context", "lots"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--context"), std::string::npos) << r.err;
  r = run_meshplan({"plan", "-c", broken, "-m", "llama-3.3-70b-4bit"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("broken.yaml:"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace meshplan
