// The fleet benchmark on small fleets: every plan of the matrix in its own child, a model that
// does not fit reported as such, plans past the limit reported as over it, the growth exponent,
// and bad names refused before any plan.
#include "bench/fleet_bench.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "lib/core/error.hpp"

namespace meshplan::fleet_bench_test {
namespace {

TEST(fleet_bench_test, growth_exponent_is_the_slope_of_log_time_on_log_hosts) {
  // time = 0.001 * hosts^2: slope 2; hosts^1.5: slope 1.5.
  std::vector<std::pair<int, double>> square, power;
  for (int n : {64, 256, 1024}) {
    square.push_back({n, 1e-3 * n * n});
    power.push_back({n, 2 * std::pow(n, 1.5)});
  }
  EXPECT_NEAR(*growth_exponent(square), 2.0, 1e-9);
  EXPECT_NEAR(*growth_exponent(power), 1.5, 1e-9);
  // Least squares through noise: 1, 4, 8 seconds at 1, 2, 4 hosts.
  EXPECT_NEAR(*growth_exponent({{1, 1}, {2, 4}, {4, 8}}), 1.5, 1e-9);
  EXPECT_FALSE(growth_exponent({{64, 1.0}}).has_value());
  EXPECT_FALSE(growth_exponent({{64, 1.0}, {64, 2.0}}).has_value());
  EXPECT_FALSE(growth_exponent({}).has_value());
}

TEST(fleet_bench_test, small_fleets_plan_in_children_and_report_what_does_not_fit) {
  FleetOptions o;
  o.sizes = {8, 16};
  o.families = {"minis"};
  // 405B at 4 bits fits 8 minis of 64 GiB; DeepSeek V3.1 in bf16 (about 1.3 TB) fits neither 8
  // nor 16.
  o.models = {"llama-3.1-405b-4bit", "deepseek-v3.1-bf16"};
  o.time_limit_s = 120;
  int progress = 0;
  FleetReport r = run_fleet_bench(o, Catalog::builtin(), [&](const FleetRun&) { ++progress; });
  ASSERT_EQ(r.runs.size(), 8u);  // 2 sizes x 2 objectives x 2 models
  EXPECT_EQ(progress, 8);
  for (const FleetRun& run : r.runs) {
    SCOPED_TRACE(fleet_run_line(run));
    EXPECT_EQ(run.family, "minis");
    EXPECT_GT(run.seconds, 0);
    EXPECT_LT(run.seconds, o.time_limit_s);
    EXPECT_GT(run.peak_bytes, 1u << 20);
    if (run.model == "llama-3.1-405b-4bit") {
      ASSERT_EQ(run.outcome, FleetRun::Outcome::kPlanned) << run.message;
      EXPECT_GT(run.tokens_per_s, 0);
      EXPECT_GE(run.used_hosts, 2);
      EXPECT_LE(run.used_hosts, run.hosts);
      EXPECT_FALSE(run.strategy.empty());
    } else {
      EXPECT_EQ(run.outcome, FleetRun::Outcome::kDoesNotFit);
      EXPECT_FALSE(run.message.empty());
    }
    EXPECT_TRUE(run.finished());
  }
  // Throughput may use replicas: at least as many tokens/s as one stream of the latency plan.
  EXPECT_GE(r.runs[2].tokens_per_s, r.runs[0].tokens_per_s);
  ASSERT_EQ(r.growth.size(), 4u);  // 2 objectives x 2 models
  for (const FleetGrowth& g : r.growth) {
    EXPECT_EQ(g.finished_sizes, (std::vector<int>{8, 16}));
    EXPECT_TRUE(g.exponent.has_value());
    EXPECT_FALSE(g.ratio_to_256.has_value());  // no 256 among the sizes
  }
  const std::string text = render_fleet(r);
  EXPECT_NE(text.find("does not fit"), std::string::npos) << text;
  EXPECT_NE(text.find("exponent"), std::string::npos) << text;
  const ojson j = fleet_to_json(r);
  ASSERT_EQ(j.at("runs").size(), 8u);
  EXPECT_EQ(j.at("runs")[1].at("outcome"), "does not fit");
  EXPECT_TRUE(j.at("runs")[0].at("seconds").is_number());
}

TEST(fleet_bench_test, a_plan_past_the_limit_is_over_it_not_a_time) {
  FleetOptions o;
  o.sizes = {256};
  o.families = {"minis"};
  o.models = {"llama-3.1-405b-4bit"};
  o.objectives = {"latency"};
  o.time_limit_s = 0.002;  // the plan of 256 hosts takes tens of milliseconds
  FleetReport r = run_fleet_bench(o, Catalog::builtin());
  ASSERT_EQ(r.runs.size(), 1u);
  EXPECT_EQ(r.runs[0].outcome, FleetRun::Outcome::kOverLimit);
  EXPECT_FALSE(r.runs[0].finished());
  EXPECT_TRUE(r.growth[0].finished_sizes.empty());
  EXPECT_FALSE(r.growth[0].exponent.has_value());
  const std::string text = render_fleet(r);
  EXPECT_NE(text.find("over the limit"), std::string::npos) << text;
  const ojson j = fleet_to_json(r);
  EXPECT_EQ(j.at("runs")[0].at("outcome"), "over the limit");
  EXPECT_TRUE(j.at("runs")[0].at("seconds").is_null());
}

TEST(fleet_bench_test, bad_names_are_refused_before_any_plan) {
  auto refused = [](FleetOptions o) {
    int plans = 0;
    try {
      run_fleet_bench(o, Catalog::builtin(), [&](const FleetRun&) { ++plans; });
    } catch (const Error& e) {
      EXPECT_EQ(plans, 0);
      return e.kind() == ErrorKind::kBadInput;
    }
    return false;
  };
  FleetOptions o;
  o.sizes = {8};
  o.families = {"minis", "moon-base"};
  EXPECT_TRUE(refused(o));
  o.families = {"minis"};
  o.objectives = {"latency", "speed"};
  EXPECT_TRUE(refused(o));
  o.objectives = {"latency"};
  o.models = {"llama-3.1-405b-4bit", "no-such-model"};
  EXPECT_TRUE(refused(o));
  o.models = {"llama-3.1-405b-4bit"};
  o.families = {"mixed-6"};
  o.sizes = {4};  // fewer hosts than kinds
  EXPECT_TRUE(refused(o));
  o.sizes = {8};
  o.time_limit_s = 0;
  EXPECT_TRUE(refused(o));
}

}  // namespace
}  // namespace meshplan::fleet_bench_test
