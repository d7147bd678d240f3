// `plan --strategy routed`, `--profile` and `emit routing` through the real binary.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <vector>

#include "lib/cluster/catalog.hpp"
#include "tests/test_support.hpp"

namespace meshplan::routed_plan_test {
namespace {

using nlohmann::json;
using namespace meshplan::testing;

const std::string kFive = source_path("examples/clusters/ethernet-5-node.yaml");
const std::string kAir = source_path("examples/clusters/studio-air-fabric.yaml");

// Flow is conserved at every host: what enters (requests at the first layer, tokens from other
// hosts) is what it carries, and what it carries leaves (to other hosts, or done at the last).
void expect_conserved(const json& routing, double aggregate) {
  std::map<std::string, double> in, out;
  double entered = 0, exited = 0;
  for (const auto& l : routing["links"]) {
    out[l["from"]] += l["flow_tokens_per_s"].get<double>();
    in[l["to"]] += l["flow_tokens_per_s"].get<double>();
    EXPECT_LE(l["flow_tokens_per_s"].get<double>(),
              l["capacity_tokens_per_s"].get<double>() + 0.01);
  }
  for (const auto& h : routing["hosts"]) {
    const std::string name = h["host"];
    const double flow = h["flow_tokens_per_s"], entry = h["entry_tokens_per_s"],
                 exit = h["exit_tokens_per_s"];
    EXPECT_NEAR(entry + in[name], flow, 0.01) << name;
    EXPECT_NEAR(out[name] + exit, flow, 0.01) << name;
    EXPECT_LE(flow, h["capacity_tokens_per_s"].get<double>() + 0.01) << name;
    entered += entry;
    exited += exit;
  }
  EXPECT_NEAR(entered, aggregate, 0.01);
  EXPECT_NEAR(exited, aggregate, 0.01);
}

// Four requests on five hosts that each hold a copy: the hosts are busy four fifths of the time
// and every route carries that share.
TEST(RoutedPlan, FewerRequestsThanHostsLeaveThemIdleForTheirShare) {
  RunResult r = run_meshplan({"plan", "-c", kFive, "-m", "llama-3.3-70b-4bit", "--strategy",
                              "routed", "--concurrency", "4", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json p = json::parse(r.out);
  RunResult eight = run_meshplan({"plan", "-c", kFive, "-m", "llama-3.3-70b-4bit", "--strategy",
                                  "routed", "--concurrency", "8", "--json"});
  ASSERT_EQ(eight.exit_code, 0) << eight.err;
  json q = json::parse(eight.out);
  ASSERT_EQ(q["serving"]["requests_in_flight"], 5);
  EXPECT_EQ(p["serving"]["requests_in_flight"], 4);
  const double aggregate = p["serving"]["aggregate_tokens_per_s"];
  EXPECT_NEAR(aggregate, q["serving"]["aggregate_tokens_per_s"].get<double>() * 4 / 5, 0.01);
  expect_conserved(p["routing"], aggregate);
}

TEST(RoutedPlan, FlowIsConservedAndBeatsItsBaselines) {
  RunResult r = run_meshplan({"plan", "-c", kFive, "-m", "llama-3.3-70b-4bit", "--strategy",
                              "routed", "--concurrency", "8", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json p = json::parse(r.out);
  EXPECT_EQ(p["strategy"], "routed");
  const double aggregate = p["serving"]["aggregate_tokens_per_s"];
  EXPECT_GT(aggregate, 0);
  // Eight requests in flight in all at most, each host batching the streams that pass it.
  EXPECT_LE(p["serving"]["requests_in_flight"].get<int>(), 8);
  EXPECT_GE(p["serving"]["requests_in_flight"].get<int>(), 5) << "a stream on each of five hosts";
  EXPECT_GE(p["routing"]["streams_per_host"].get<int>(), 1);
  EXPECT_LE(p["routing"]["streams_per_host"].get<int>(), 8);
  EXPECT_GE(p["serving"]["bound"]["aggregate_tokens_per_s"].get<double>(), aggregate);
  expect_conserved(p["routing"], aggregate);
  // Ranges of the hosts cover every layer.
  std::vector<int> cover(80, 0);
  for (const auto& h : p["routing"]["hosts"])
    for (int l = h["layers"][0]; l < h["layers"][1].get<int>(); ++l)
      ++cover[static_cast<size_t>(l)];
  for (int c : cover)
    EXPECT_GE(c, 1);
  int baselines = 0;
  for (const auto& b : p["baselines"])
    if (b["solver"] == "routed-single-pipeline" || b["solver"] == "routed-disjoint-replicas") {
      ++baselines;
      EXPECT_GE(aggregate, b["decode_tokens_per_s"].get<double>() - 0.01);
    }
  EXPECT_EQ(baselines, 2);
}

std::string write_profile(const std::string& text) {
  std::string path = temp_dir() + "/profile.yaml";
  std::ofstream(path) << text;
  return path;
}

TEST(RoutedPlan, ProfileTablesReplaceTheCostModel) {
  // Each Studio holds at most 16 of the 32 layers: the two must split, and the first host (which
  // pays no LM head) carries exactly its table's entry for its range.
  std::string table_a = "[", table_b = "[";
  for (int k = 1; k <= 16; ++k) {
    table_a += (k > 1 ? ", " : "") + std::to_string(1000 - 10 * k);
    table_b += (k > 1 ? ", " : "") + std::to_string(2000 - 10 * k);
  }
  std::string path = write_profile(
      "model: llama-3.1-8b-4bit\nhosts:\n  studio-a:\n    "
      "tokens_per_s: " +
      table_a + "]\n  studio-b:\n    tokens_per_s: " + table_b + "]\n");
  RunResult r = run_meshplan({"plan", "-c", kAir, "-m", "llama-3.1-8b-4bit", "--strategy", "routed",
                              "--profile", path, "--concurrency", "8", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json p = json::parse(r.out);
  const auto& hosts = p["routing"]["hosts"];
  ASSERT_EQ(hosts.size(), 2u);
  EXPECT_EQ(hosts[0]["layers"][0], 0);
  EXPECT_EQ(hosts[0]["layers"][1], 16);
  EXPECT_EQ(hosts[1]["layers"][1], 32);
  EXPECT_TRUE(hosts[0]["table"].get<std::string>().starts_with("profile host"));
  const std::string first = hosts[0]["host"];
  const double expected = first == "studio-a" ? 1000 - 160 : 2000 - 160;
  EXPECT_NEAR(hosts[0]["capacity_tokens_per_s"].get<double>(), expected, 0.01);
  const double aggregate = p["serving"]["aggregate_tokens_per_s"];
  EXPECT_NEAR(aggregate,
              std::min(hosts[0]["capacity_tokens_per_s"].get<double>(),
                       hosts[1]["capacity_tokens_per_s"].get<double>()),
              0.01);
  EXPECT_TRUE(p["routing"]["optimal"].get<bool>());
}

TEST(RoutedPlan, ProfileErrors) {
  std::string path = write_profile(
      "model: llama-3.3-70b-4bit\nhosts:\n  studio-a:\n    "
      "tokens_per_s: [10]\n");
  RunResult other = run_meshplan(
      {"plan", "-c", kAir, "-m", "llama-3.1-8b-4bit", "--strategy", "routed", "--profile", path});
  EXPECT_EQ(other.exit_code, 2);
  EXPECT_NE(other.err.find("llama-3.3-70b-4bit"), std::string::npos) << other.err;
  RunResult latency = run_meshplan({"plan", "-c", kAir, "-m", "llama-3.3-70b-4bit", "--profile",
                                    path, "--objective", "latency"});
  EXPECT_EQ(latency.exit_code, 2);
  EXPECT_NE(latency.err.find("--profile"), std::string::npos) << latency.err;
  RunResult routed_latency = run_meshplan({"plan", "-c", kAir, "-m", "llama-3.3-70b-4bit",
                                           "--strategy", "routed", "--objective", "latency"});
  EXPECT_EQ(routed_latency.exit_code, 2);
}

TEST(RoutedPlan, EmitRoutingWeightsFollowTheFlow) {
  std::string dir = temp_dir();
  RunResult plan = run_meshplan({"plan", "-c", kFive, "-m", "llama-3.3-70b-4bit", "--strategy",
                                 "routed", "--concurrency", "8", "-o", dir + "/plan.json"});
  ASSERT_EQ(plan.exit_code, 0) << plan.err;
  RunResult r = run_meshplan({"emit", "routing", "-c", kFive, "--plan", dir + "/plan.json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json t = json::parse(r.out);
  EXPECT_EQ(t["schema"], "meshplan.routing/1");
  double entry = 0;
  for (const auto& e : t["entry"])
    entry += e["weight"].get<double>();
  EXPECT_NEAR(entry, 1, 1e-5);
  for (const auto& h : t["hosts"]) {
    double w = h["exit"];
    for (const auto& n : h["next"])
      w += n["weight"].get<double>();
    EXPECT_NEAR(w, 1, 1e-5) << h["host"];
  }
  // The drawing shows each host's range and an arrow per link that carries tokens.
  json plan_json = json::parse(read_text(dir + "/plan.json"));
  RunResult d = run_meshplan({"dot", "-c", kFive, "--plan", dir + "/plan.json"});
  ASSERT_EQ(d.exit_code, 0) << d.err;
  size_t arrows = 0;
  for (size_t at = d.out.find("dir=forward"); at != std::string::npos;
       at = d.out.find("dir=forward", at + 1))
    ++arrows;
  EXPECT_EQ(arrows, plan_json["routing"]["links"].size());
  for (const auto& h : plan_json["routing"]["hosts"])
    EXPECT_NE(d.out.find("layers [" + std::to_string(h["layers"][0].get<int>()) + ", " +
                         std::to_string(h["layers"][1].get<int>()) + ")"),
              std::string::npos)
        << h["host"];

  // A plan that is not routed has no routing table: exit 1, saying how to make one.
  RunResult p2 =
      run_meshplan({"plan", "-c", kFive, "-m", "llama-3.3-70b-4bit", "-o", dir + "/pipeline.json"});
  ASSERT_EQ(p2.exit_code, 0) << p2.err;
  RunResult none = run_meshplan({"emit", "routing", "-c", kFive, "--plan", dir + "/pipeline.json"});
  EXPECT_EQ(none.exit_code, 1);
  EXPECT_NE(none.err.find("--strategy routed"), std::string::npos) << none.err;
}

TEST(RoutedPlan, AutoThroughputComparesRouted) {
  RunResult r = run_meshplan({"plan", "-c", kFive, "-m", "llama-3.3-70b-4bit", "--objective",
                              "throughput", "--concurrency", "4", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json p = json::parse(r.out);
  bool seen = p["strategy"] == "routed";
  for (const auto& a : p["alternatives"])
    seen = seen || a["strategy"] == "routed";
  EXPECT_TRUE(seen);
}

TEST(RoutedPlan, HelixsClusterFromItsFixturesWithTheTimeItTook) {
  // Helix's 24-node cluster: its MILP's best after 600 s was 1,289.6 tokens/s; every layout
  // meshplan proves optimal here meets the bound, 2,045.6. -v says where the time went.
  const std::string dir = source_path("tests/fixtures/helix");
  RunResult r =
      run_meshplan({"plan", "-c", dir + "/helix-24.yaml", "-m", dir + "/llama-2-70b", "--strategy",
                    "routed", "--profile", dir + "/helix-24.profile.yaml", "--json", "-v"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json p = json::parse(r.out);
  const double aggregate = p["serving"]["aggregate_tokens_per_s"];
  EXPECT_NEAR(aggregate, 2045.64, 0.01);
  EXPECT_GE(aggregate, 1.55 * 1289.6);
  EXPECT_TRUE(p["routing"]["optimal"].get<bool>());
  expect_conserved(p["routing"], aggregate);
  for (const char* step : {"time: ", "model ", "profile ", "cluster ", "plan ",
                           "time in the routed planner: ", "host tables and streams per host ",
                           "upper bound ", "disjoint replicas ", "branch and bound "})
    EXPECT_NE(r.err.find(step), std::string::npos) << step << "\n" << r.err;
}

// Helix's three clusters, their 80 GB GPUs swapped for every discrete GPU of the catalog of as
// much memory or more (H100, H200, GH200, B200, GB200, RTX PRO 6000...): the same tables, more
// streams and layers fit, and the flow stays at least 99.5 % of what the 80 GB GPUs give.
TEST(RoutedPlan, HelixsClustersOnHostsOfMoreMemoryServeAsMuch) {
  const std::string dir = source_path("tests/fixtures/helix");
  struct Case {
    const char* cluster;
    const char* model;
    const char* context;
    double at_least;  // on 80 GB, tokens/s
  };
  const std::vector<Case> cases = {{"helix-10", "llama-30b", "2048", 286},
                                   {"helix-24", "llama-2-70b", "4096", 2000},
                                   {"helix-42", "llama-2-70b", "4096", 5900}};
  std::vector<std::string> chips;
  const uint64_t eighty = 80ull << 30;
  for (const ChipSpec& c : Catalog::builtin().chips())
    if (!c.unified_memory && c.gpu_memory >= eighty && c.key != "a100-80gb") chips.push_back(c.key);
  ASSERT_GE(chips.size(), 5u);
  for (const Case& c : cases) {
    auto served = [&](const std::string& path) {
      RunResult r = run_meshplan({"plan", "-c", path, "-m", dir + "/" + c.model, "--context",
                                  c.context, "--strategy", "routed", "--profile",
                                  dir + "/" + c.cluster + ".profile.yaml", "--json"});
      EXPECT_EQ(r.exit_code, 0) << c.cluster << ": " << r.err;
      return r.exit_code == 0
                 ? json::parse(r.out)["serving"]["aggregate_tokens_per_s"].get<double>()
                 : 0.0;
    };
    const double on_80gb = served(dir + "/" + c.cluster + ".yaml");
    EXPECT_GT(on_80gb, c.at_least) << c.cluster;
    for (const std::string& chip : chips) {
      std::string cluster = read_text(dir + "/" + c.cluster + ".yaml");
      for (size_t at = cluster.find("a100-80gb"); at != std::string::npos;
           at = cluster.find("a100-80gb", at))
        cluster.replace(at, 9, chip);
      const std::string big = temp_dir() + "/" + c.cluster + "-" + chip + ".yaml";
      std::ofstream(big) << cluster;
      EXPECT_GE(served(big), 0.995 * on_80gb) << c.cluster << " on " << chip;
    }
  }
}

// More requests in flight allow every count of streams fewer did, and what each serves only
// grows with them: a larger --concurrency never serves less.
TEST(RoutedPlan, MoreRequestsInFlightNeverServeLess) {
  for (const std::string& cluster : {kFive, kAir}) {
    double before = 0;
    for (int n : {1, 2, 3, 4, 5, 8, 12, 16, 32, 64}) {
      RunResult r = run_meshplan({"plan", "-c", cluster, "-m", "llama-3.3-70b-4bit", "--strategy",
                                  "routed", "--concurrency", std::to_string(n), "--json"});
      ASSERT_EQ(r.exit_code, 0) << r.err;
      const json p = json::parse(r.out);
      const double served = p["serving"]["aggregate_tokens_per_s"];
      EXPECT_GE(served, before * (1 - 1e-9)) << cluster << ", --concurrency " << n;
      EXPECT_LE(p["serving"]["requests_in_flight"].get<int>(), n) << cluster;
      for (const auto& b : p["baselines"])
        EXPECT_GE(served, b["decode_tokens_per_s"].get<double>() - 0.01) << b["solver"];
      before = served;
    }
  }
}

}  // namespace
}  // namespace meshplan::routed_plan_test
