// meshplan-bench, the real program: the reduced run finds no violation, and a family it does not
// know is bad usage; --fleet times plans on a small fleet, as a table or JSON, and refuses bad
// values and the other benchmarks' options; --routed reports the routed search's gaps.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <regex>

#include "tests/test_support.hpp"

namespace meshplan::bench_main_test {
namespace {

using testing::run_meshplan_bench;

TEST(bench_main_test, quick_run_finds_no_violation) {
  auto r = run_meshplan_bench({"--quick", "--families", "two-tier,daisy-chain", "--sizes", "3,13"});
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_NE(r.out.find("two-tier"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("daisy-chain"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("No violations"), std::string::npos) << r.out;
}

TEST(bench_main_test, unknown_family_and_bad_numbers_exit_2) {
  auto r = run_meshplan_bench({"--families", "moon-base"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("moon-base"), std::string::npos) << r.err;
  r = run_meshplan_bench({"--sizes", "3,x"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("--sizes 3,x"), std::string::npos) << r.err;
}

TEST(bench_main_test, fleet_times_plans_on_a_small_fleet) {
  auto r = run_meshplan_bench({"--fleet", "--sizes", "8", "--families", "minis", "--models",
                               "llama-3.1-405b-4bit", "--time-limit", "20"});
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  // A row: family, hosts, objective, model, time in seconds, peak MB, the plan.
  EXPECT_TRUE(std::regex_search(
      r.out, std::regex("\nminis +8 +latency +llama-3.1-405b-4bit +[0-9]+\\.[0-9]{3} +[0-9]+ +"
                        "[a-z]+.*, [0-9]+ hosts?, [0-9.]+ tok/s\n")))
      << r.out;
  EXPECT_NE(r.out.find("throughput"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("exponent"), std::string::npos) << r.out;
  // Progress on stderr, one line a plan.
  EXPECT_NE(r.err.find("minis 8 hosts latency llama-3.1-405b-4bit: "), std::string::npos) << r.err;
  r = run_meshplan_bench({"--fleet", "--sizes", "8", "--families", "h100-nodes", "--models",
                          "deepseek-v3.1-4bit", "--objectives", "latency", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j.at("runs").size(), 1u);
  EXPECT_EQ(j.at("runs")[0].at("outcome"), "planned");
  EXPECT_GT(j.at("runs")[0].at("seconds").get<double>(), 0);
  EXPECT_EQ(j.at("time_limit_s"), 60);
}

TEST(bench_main_test, fleet_bad_values_exit_2) {
  // The arguments, and what the message names.
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--fleet", "--families", "moon-base"}, "moon-base"},
      {{"--fleet", "--objectives", "speed"}, "speed"},
      {{"--fleet", "--models", "no-such-model"}, "no-such-model"},
      {{"--fleet", "--sizes", "8,x"}, "--sizes 8,x"},
      {{"--fleet", "--time-limit", "0"}, "--time-limit"},
      {{"--fleet", "--time-limit", "soon"}, "--time-limit"},
      {{"--fleet", "--quick"}, "--quick is not for --fleet"},
      {{"--time-limit", "5"}, "--time-limit is for --fleet"},
  };
  for (const auto& [args, named] : cases) {
    auto r = run_meshplan_bench(args);
    EXPECT_EQ(r.exit_code, 2) << named << ": " << r.err;
    EXPECT_NE(r.err.find(named), std::string::npos) << r.err;
  }
}

TEST(bench_main_test, routed_reports_each_familys_gap_and_its_split) {
  auto r = run_meshplan_bench({"--routed", "--families", "two-regions", "--sizes", "6"});
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  // An instance: family, hosts, layers, seed, flow, bound, gap, proven, time.
  EXPECT_TRUE(std::regex_search(
      r.out, std::regex("\ntwo-regions +6 +60 +106 +[0-9.]+ +[0-9.]+ +[0-9]+\\.[0-9]{2} +(yes|no) "
                        "+[0-9]+\\.[0-9]{3}\n")))
      << r.out;
  EXPECT_NE(r.out.find("gap mean %"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("bound over optimum %"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("two-regions 6 hosts, 80 layers, seed 206: "), std::string::npos) << r.err;
  r = run_meshplan_bench(
      {"--routed", "--families", "one-region", "--sizes", "6", "--budget", "0.5", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j.at("runs").size(), 2u);
  ASSERT_EQ(j.at("families").size(), 1u);
  const nlohmann::json& f = j.at("families")[0];
  EXPECT_EQ(f.at("family"), "one-region");
  for (const nlohmann::json& run : j.at("runs")) {
    EXPECT_GE(run.at("bound").get<double>(), run.at("flow").get<double>() * (1 - 1e-9));
    EXPECT_LE(run.at("gap_pct").get<double>(), f.at("gap_worst_pct").get<double>() + 1e-9);
  }
  // The integer program proves small instances; the search finds what it finds there.
  ASSERT_EQ(j.at("split").size(), 4u);
  for (const nlohmann::json& x : j.at("split"))
    if (!x.at("optimum").is_null()) {
      EXPECT_GE(x.at("bound").get<double>(), x.at("optimum").get<double>() * (1 - 1e-6));
      EXPECT_LE(x.at("flow").get<double>(), x.at("optimum").get<double>() * (1 + 1e-6));
    }
  EXPECT_EQ(j.at("budget_s"), 0.5);
  for (const auto& [args, named] : std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"--routed", "--families", "moon-base"}, "moon-base"},
           {{"--routed", "--budget", "0"}, "--budget"},
           {{"--routed", "--sizes", "1"}, "--sizes 1"},
           {{"--routed", "--models", "llama-3.1-405b-4bit"}, "--models is not for --routed"},
           {{"--budget", "3"}, "--budget is for --routed"},
           {{"--routed", "--split", "6"}, "--split 6: expected HOSTSxLAYERS, e.g. 6x12"},
           {{"--routed", "--split", "6x-2"}, "--split 6x-2: expected HOSTSxLAYERS"},
           {{"--routed", "--split", "1x10"}, "--split 1x10: expected 2 to 12 hosts"},
           {{"--routed", "--split", "6x90"}, "--split 6x90: expected 2 to 12 hosts over 2 to 40"},
           {{"--routed", "--split-seeds", "-1"}, "--split-seeds -1: expected 0 to 100"},
           {{"--split", "6x12"}, "--split is for --routed"},
           {{"--fleet", "--split-seeds", "2"}, "--split-seeds is for --routed"},
           {{"--routed", "--fleet"}, "excludes"}}) {
    auto bad = run_meshplan_bench(args);
    EXPECT_EQ(bad.exit_code, 2) << named << ": " << bad.err;
    EXPECT_NE(bad.err.find(named), std::string::npos) << bad.err;
  }
}

// The split's instances are the size asked for, as many as asked for; none with 0 seeds.
TEST(bench_main_test, routed_split_takes_its_size_and_seeds) {
  auto r = run_meshplan_bench({"--routed", "--families", "four-regions", "--sizes", "4", "--split",
                               "3x6", "--split-seeds", "2", "--budget", "0.2", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  nlohmann::json j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j.at("split").size(), 2u);
  for (const nlohmann::json& x : j.at("split")) {
    EXPECT_EQ(x.at("hosts"), 3);
    EXPECT_EQ(x.at("layers"), 6);
    // Three hosts over six layers: the program proves every one, and the bound holds above it.
    ASSERT_FALSE(x.at("optimum").is_null()) << x;
    EXPECT_GE(x.at("bound").get<double>(), x.at("optimum").get<double>() * (1 - 1e-6));
    EXPECT_LE(x.at("flow").get<double>(), x.at("optimum").get<double>() * (1 + 1e-6));
  }
  EXPECT_EQ(j.at("families")[0].at("split_proven"), 2);
  r = run_meshplan_bench({"--routed", "--families", "four-regions", "--sizes", "4", "--split",
                          "3x6", "--split-seeds", "2", "--budget", "0.2"});
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_NE(r.out.find("The gap split on 3 hosts over 6 layers (seeds 1-2)"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("2 of 2"), std::string::npos) << r.out;
  r = run_meshplan_bench({"--routed", "--families", "one-region", "--sizes", "4", "--split-seeds",
                          "0", "--budget", "0.2", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  j = nlohmann::json::parse(r.out);
  EXPECT_TRUE(j.at("split").empty());
  EXPECT_EQ(j.at("families")[0].at("split_proven"), 0);
}

// Links that never bind: on four regions the search carries more, the bound never falls below the
// bound on the instance's own links, and each free flow stays within its own bound.
TEST(bench_main_test, routed_free_links_show_what_the_links_cost) {
  auto r = run_meshplan_bench({"--routed", "--families", "four-regions", "--sizes", "10",
                               "--split-seeds", "0", "--budget", "0.3", "--free-links", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  nlohmann::json j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j.at("runs").size(), 2u);
  double more = 0;
  for (const nlohmann::json& x : j.at("runs")) {
    const double flow = x.at("flow"), bound = x.at("bound");
    const double free_flow = x.at("free_flow"), free_bound = x.at("free_bound");
    EXPECT_GE(free_bound, bound * (1 - 1e-9)) << x;
    EXPECT_LE(free_flow, free_bound * (1 + 1e-9)) << x;
    more += free_flow / flow - 1;
  }
  const nlohmann::json& f = j.at("families")[0].at("free_links");
  EXPECT_NEAR(f.at("flow_over_own_links_pct").get<double>(), more / 2 * 100, 1e-6);
  // Between regions of 300 to 2,000 tokens/s a pair, the links bind on these instances.
  EXPECT_GT(f.at("flow_over_own_links_pct").get<double>(), 1);
  EXPECT_LE(f.at("bound_unchanged").get<int>(), 2);
  r = run_meshplan_bench({"--routed", "--families", "four-regions", "--sizes", "10",
                          "--split-seeds", "0", "--budget", "0.3", "--free-links"});
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_NE(r.out.find("with links that never bind (--free-links)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("bound unchanged"), std::string::npos) << r.out;
  r = run_meshplan_bench({"--free-links"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--free-links is for --routed"), std::string::npos) << r.err;
}

// meshplan itself no longer carries the harness.
TEST(bench_main_test, meshplan_has_no_bench_command) {
  auto r = testing::run_meshplan({"bench", "--quick"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("unknown command \"bench\""), std::string::npos) << r.err;
}

}  // namespace
}  // namespace meshplan::bench_main_test
