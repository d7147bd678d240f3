// What is planned is what runs: for every bundled example cluster (and the Spark + Mac pair), under
// both objectives with --strategy auto, the chosen plan names the engine that runs it, `emit all`
// writes its launch, and every launch file names exactly the plan's hosts (a replica's folder
// only that replica's) with the planned split, shares or degree.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>

#include "tests/test_support.hpp"

namespace meshplan::launch_every_example_test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using testing::read_text;
using testing::run_meshplan;
using testing::source_path;

// Files of one launch folder that start engines (not the drawing, inventory or checklist).
std::string launch_text(const fs::path& dir) {
  std::string text;
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (!entry.is_regular_file() || name == "LAUNCH.md" || name == "cluster.dot" ||
        name == "inventory.yaml" || name == "nginx.conf")
      continue;
    text += read_text(entry.path().string()) + "\n";
  }
  return text;
}

bool names(const std::string& text, const std::string& host) {
  const std::regex word("(^|[^A-Za-z0-9-])" + host + "([^A-Za-z0-9-]|$)");
  return std::regex_search(text, word);
}

// Every host of the cluster appears in `text` exactly when it is one of `hosts`.
void expect_hosts(const std::string& text, const std::vector<std::string>& all,
                  const std::set<std::string>& hosts, const std::string& where) {
  for (const std::string& h : all)
    EXPECT_EQ(names(text, h), hosts.count(h) > 0) << where << ": host " << h;
}

// The engine's own file, with the plan's layout in it.
void expect_engine_files(const fs::path& dir, const std::string& engine, const json& layout,
                         const std::string& where) {
  const std::string strategy = layout["strategy"];
  const size_t ranks = layout["ranks"].size();
  if (engine == "mlx-lm") {
    const std::string launch = read_text((dir / "mlx-launch.sh").string());
    if (ranks == 1) {
      // One rank runs mlx_lm.server alone, without mlx.launch.
      EXPECT_NE(launch.find("\nmlx_lm.server --model "), std::string::npos) << where << launch;
      EXPECT_EQ(launch.find("\nmlx.launch "), std::string::npos) << where << launch;
      return;
    }
    EXPECT_NE(launch.find(fmt::format("mlx.launch over {} ranks", ranks)), std::string::npos)
        << where << launch;
    EXPECT_EQ(launch.find("--pipeline --host") != std::string::npos,
              strategy == "pipeline" && ranks > 1)
        << where << launch;
    // mlx-lm loads exactly the planned ranges: no rank differs, no layer is left out.
    EXPECT_EQ(launch.find("(differs)"), std::string::npos) << where << launch;
    EXPECT_EQ(launch.find("on no rank"), std::string::npos) << where << launch;
    const json hostfile = json::parse(read_text((dir / "mlx-hostfile.json").string()));
    EXPECT_EQ(hostfile["hosts"].size(), ranks) << where;
  } else if (engine == "llama-rpc") {
    const std::string launch = read_text((dir / "llama-rpc.sh").string());
    EXPECT_NE(launch.find("llama-server"), std::string::npos) << where << launch;
    if (ranks > 1) {
      EXPECT_NE(launch.find("--tensor-split"), std::string::npos) << where;
    }
  } else if (engine == "exo") {
    EXPECT_TRUE(fs::exists(dir / "exo.sh")) << where;
  } else if (engine == "vllm") {
    EXPECT_TRUE(fs::exists(dir / "vllm.sh")) << where;
  } else {
    ADD_FAILURE() << where << ": unknown engine " << engine;
  }
}

void check_example(const std::string& cluster, const std::string& model,
                   const std::string& objective,
                   const std::vector<std::string>& strategy = {"--strategy", "auto"}) {
  const std::string where = fs::path(cluster).stem().string() + " " + model + " " + objective;
  const std::string dir = testing::temp_dir() + "/" + fs::path(cluster).stem().string() + "-" +
                          model + "-" + objective + "-" + strategy.back();
  const std::string plan_file = dir + ".json";
  std::vector<std::string> args = {"plan",        "-c",      cluster, "-m",     model,
                                   "--objective", objective, "-o",    plan_file};
  args.insert(args.end(), strategy.begin(), strategy.end());
  auto p = run_meshplan(args);
  if (p.exit_code == 1 && p.err.find("does not fit") != std::string::npos) return;
  ASSERT_EQ(p.exit_code, 0) << where << ": " << p.err;
  // The plan says which engine runs it and ends with the command that writes its launch.
  EXPECT_NE(p.out.find("\nEngine: "), std::string::npos) << where << p.out;
  EXPECT_NE(p.out.find("Launch: meshplan emit all -c "), std::string::npos) << where;
  const json plan = json::parse(read_text(plan_file));
  ASSERT_TRUE(plan.contains("engine") && plan["engine"].is_string()) << where << plan.dump();
  const std::string engine = plan["engine"];
  auto e = run_meshplan({"emit", "all", "-c", cluster, "--plan", plan_file, "-o", dir});
  ASSERT_EQ(e.exit_code, 0) << where << ": " << e.err;

  std::vector<std::string> all;
  for (const auto& h : plan["hosts"])
    all.push_back(h["name"]);
  if (plan.contains("replicas") || plan.contains("routing")) {
    // One launch per copy, and nginx in front weighing them by the plan's request shares.
    const json copies = plan.contains("replicas") ? plan["replicas"] : plan["routing"]["hosts"];
    const std::string nginx = read_text(dir + "/nginx.conf");
    double total_flow = 0;
    for (const json& c : copies)
      total_flow += c.contains("flow_tokens_per_s") ? c["flow_tokens_per_s"].get<double>() : 0;
    size_t k = 1;
    for (const json& c : copies) {
      const fs::path folder = fs::path(dir) / fmt::format("replica-{}", k++);
      ASSERT_TRUE(fs::is_directory(folder)) << where << " " << folder;
      std::set<std::string> hosts;
      json layout = {{"strategy", plan["strategy"]}, {"ranks", json::array()}};
      if (c.contains("hosts")) {
        for (const auto& h : c["hosts"])
          hosts.insert(h.get<std::string>());
        layout = {{"strategy", c["strategy"]}, {"ranks", c["ranks"]}};
      } else {
        hosts.insert(c["host"].get<std::string>());
        layout = {{"strategy", "pipeline"}, {"ranks", json::array({c})}};
      }
      expect_hosts(launch_text(folder), all, hosts, where + " " + folder.string());
      expect_engine_files(folder, engine, layout, where + " " + folder.string());
      const double share = c.contains("request_share")
                               ? c["request_share"].get<double>()
                               : c["flow_tokens_per_s"].get<double>() / total_flow;
      const int weight = std::max(1, static_cast<int>(std::lround(share * 100)));
      EXPECT_NE(nginx.find(fmt::format(" weight={};", weight)), std::string::npos)
          << where << " share " << share << "\n"
          << nginx;
    }
    EXPECT_FALSE(fs::exists(fs::path(dir) / fmt::format("replica-{}", k))) << where;
    return;
  }
  std::set<std::string> hosts;
  for (const auto& r : plan["ranks"])
    hosts.insert(r["host"].get<std::string>());
  expect_hosts(launch_text(dir), all, hosts, where);
  expect_engine_files(dir, engine, plan, where);
}

std::vector<std::string> example_clusters() {
  std::vector<std::string> out;
  for (const auto& entry : fs::directory_iterator(source_path("examples/clusters")))
    if (entry.path().extension() == ".yaml") out.push_back(entry.path().string());
  std::sort(out.begin(), out.end());
  out.push_back(source_path("tests/fixtures/clusters/spark-m3-ultra-10gbe.yaml"));
  return out;
}

TEST(launch_every_example_test, the_chosen_plan_of_every_example_launches_as_planned) {
  const auto clusters = example_clusters();
  ASSERT_GE(clusters.size(), 6u);
  for (const std::string& cluster : clusters)
    for (const char* model : {"llama-3.3-70b-4bit", "deepseek-v3.1-4bit", "llama-3.1-8b-bf16"})
      for (const char* objective : {"latency", "throughput"})
        check_example(cluster, model, objective);
}

// A pipeline over four Minis for mlx-lm: its equal split, which the launch loads rank by rank.
TEST(launch_every_example_test, an_mlx_lm_pipeline_launches_the_split_it_predicts) {
  check_example(source_path("examples/clusters/mac-mini-m4-pro-x4.yaml"), "llama-3.3-70b-8bit",
                "latency", {"--strategy", "pipeline", "--min-hosts", "4"});
}

}  // namespace
}  // namespace meshplan::launch_every_example_test
