// `emit all` of a serving plan the planner split into replicas, and of a routed plan whose hosts
// all hold the whole model, as a user runs them: one launch folder per replica with its engine's
// files for its hosts, nginx.conf weighted by the plan's shares, and the checklist.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <regex>

#include "tests/test_support.hpp"

namespace meshplan::replicas_cli_test {
namespace {

using nlohmann::json;
using testing::read_text;
using testing::run_meshplan;
using testing::source_path;
using testing::temp_dir;

const std::string kStudios = source_path("examples/clusters/mac-studio-m3-ultra-x4.yaml");

// Plans `model` for throughput on the four studios; returns the plan file's path.
std::string throughput_plan(const std::string& model, const std::vector<std::string>& extra = {}) {
  const std::string path = temp_dir() + "/plan.json";
  std::vector<std::string> args = {"plan",        "-c",         kStudios, "-m", model,
                                   "--objective", "throughput", "-o",     path};
  args.insert(args.end(), extra.begin(), extra.end());
  auto r = run_meshplan(args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return path;
}

std::vector<std::string> files_under(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir))
    if (e.is_regular_file()) out.push_back(std::filesystem::relative(e.path(), dir).string());
  std::sort(out.begin(), out.end());
  return out;
}

// host -> weight of the nginx.conf's server lines, by the host's address in the cluster file.
std::vector<int> weights_of(const std::string& conf) {
  std::vector<int> out;
  const std::regex line(R"(server \S+:8080 weight=(\d+);)");
  for (std::sregex_iterator it(conf.begin(), conf.end(), line), end; it != end; ++it)
    out.push_back(std::stoi((*it)[1].str()));
  return out;
}

TEST(replicas_cli_test, emit_all_launches_every_replica_of_a_serving_plan) {
  const std::string plan_path = throughput_plan("llama-3.1-8b-4bit");
  const json plan = json::parse(read_text(plan_path));
  ASSERT_TRUE(plan.contains("replicas")) << "the planner splits the studios into replicas";
  const size_t n = plan["replicas"].size();
  ASSERT_GE(n, 2u);
  const std::string out = temp_dir() + "/launch";
  auto r = run_meshplan({"emit", "all", "-c", kStudios, "--plan", plan_path, "-o", out});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::vector<std::string> want = {"LAUNCH.md", "cluster.dot", "inventory.yaml", "nginx.conf"};
  // A replica of one host runs mlx_lm.server itself: no hostfile and no MLX_RANK to export.
  for (size_t k = 1; k <= n; ++k)
    for (const char* f : {"mlx-env.sh", "mlx-hostfile.json", "mlx-launch.sh"})
      if (plan["replicas"][k - 1]["hosts"].size() > 1 || std::string(f) == "mlx-launch.sh")
        want.push_back("replica-" + std::to_string(k) + "/" + f);
  std::sort(want.begin(), want.end());
  // Macs: mlx-lm's files for each replica and no Linux launcher anywhere.
  EXPECT_EQ(files_under(out), want);
  for (size_t k = 0; k < n; ++k) {
    const json& rep = plan["replicas"][k];
    const std::string dir = out + "/replica-" + std::to_string(k + 1);
    const std::string hostfile = read_text(dir + "/mlx-launch.sh");
    for (const json& other : plan["replicas"])
      for (const json& h : other["hosts"]) {
        const bool mine =
            std::find(rep["hosts"].begin(), rep["hosts"].end(), h) != rep["hosts"].end();
        EXPECT_EQ(hostfile.find(h.get<std::string>()) != std::string::npos, mine)
            << "replica " << k + 1 << ", host " << h << "\n"
            << hostfile;
      }
  }
  const std::vector<int> weights = weights_of(read_text(out + "/nginx.conf"));
  ASSERT_EQ(weights.size(), n);
  for (size_t k = 0; k < n; ++k)
    EXPECT_EQ(weights[k],
              std::max(1L, std::lround(plan["replicas"][k]["request_share"].get<double>() * 100)));
  const std::string guide = read_text(out + "/LAUNCH.md");
  EXPECT_LT(guide.find("- [ ] Replica 1"), guide.find("- [ ] Replica " + std::to_string(n)));
  EXPECT_LT(guide.find("- [ ] Replica " + std::to_string(n)), guide.find("nginx -p"));
  // `emit nginx` alone writes the same config.
  auto one = run_meshplan({"emit", "nginx", "-c", kStudios, "--plan", plan_path});
  ASSERT_EQ(one.exit_code, 0) << one.err;
  EXPECT_EQ(one.out, read_text(out + "/nginx.conf"));
}

TEST(replicas_cli_test, a_routed_plan_of_whole_copies_launches_one_replica_per_host_by_flow) {
  const std::string plan_path = throughput_plan("llama-3.3-70b-4bit", {"--strategy", "routed"});
  const json plan = json::parse(read_text(plan_path));
  ASSERT_TRUE(plan.contains("routing"));
  const json& hosts = plan["routing"]["hosts"];
  double total = 0;
  for (const json& h : hosts) {
    ASSERT_EQ(h["layers"][0], 0) << "every studio holds the whole model";
    ASSERT_EQ(h["layers"][1], hosts[0]["layers"][1]);
    total += h["flow_tokens_per_s"].get<double>();
  }
  const std::string out = temp_dir() + "/launch";
  auto r = run_meshplan({"emit", "all", "-c", kStudios, "--plan", plan_path, "-o", out});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(std::filesystem::exists(out + "/routing.json")) << "no scheduler needed";
  const std::vector<int> weights = weights_of(read_text(out + "/nginx.conf"));
  ASSERT_EQ(weights.size(), hosts.size());
  for (size_t k = 0; k < hosts.size(); ++k) {
    EXPECT_TRUE(
        std::filesystem::exists(out + "/replica-" + std::to_string(k + 1) + "/mlx-launch.sh"));
    EXPECT_EQ(weights[k],
              std::max(1L, std::lround(hosts[k]["flow_tokens_per_s"].get<double>() / total * 100)));
  }
}

// Linux GPU replicas under vLLM: emit all also writes the Slurm heterogeneous job, one component
// per replica on its own node, which `emit slurm` writes too.
TEST(replicas_cli_test, linux_replicas_come_with_their_slurm_heterogeneous_job) {
  const std::string cluster = source_path("tests/fixtures/clusters/pro6000-a100-pair.yaml");
  const std::string plan = temp_dir() + "/gpu-replicas.json";
  auto p = run_meshplan(
      {"plan", "-c", cluster, "-m", "llama-3.1-8b-bf16", "--objective", "throughput", "-o", plan});
  ASSERT_EQ(p.exit_code, 0) << p.err;
  ASSERT_EQ(json::parse(read_text(plan))["replicas"].size(), 2u);
  const std::string dir = temp_dir() + "/gpu-replicas";
  auto e = run_meshplan({"emit", "all", "-c", cluster, "--plan", plan, "-o", dir});
  ASSERT_EQ(e.exit_code, 0) << e.err;
  const std::string job = read_text(dir + "/slurm.sbatch");
  EXPECT_NE(job.find("#SBATCH hetjob"), std::string::npos) << job;
  EXPECT_NE(job.find("--het-group=0"), std::string::npos) << job;
  EXPECT_NE(job.find("--het-group=1"), std::string::npos) << job;
  EXPECT_NE(job.find("vllm serve"), std::string::npos) << job;
  auto alone = run_meshplan({"emit", "slurm", "-c", cluster, "--plan", plan});
  ASSERT_EQ(alone.exit_code, 0) << alone.err;
  EXPECT_EQ(alone.out, job);
  EXPECT_NE(read_text(dir + "/LAUNCH.md").find("`sbatch slurm.sbatch` starts every replica"),
            std::string::npos);
  EXPECT_TRUE(std::filesystem::exists(dir + "/replica-1/vllm.sh"));
  EXPECT_TRUE(std::filesystem::exists(dir + "/replica-2/vllm.sh"));
}

TEST(replicas_cli_test, emit_nginx_refuses_a_plan_of_one_copy) {
  const std::string path = temp_dir() + "/plan.json";
  auto p = run_meshplan(
      {"plan", "-c", kStudios, "-m", "llama-3.3-70b-4bit", "--strategy", "pipeline", "-o", path});
  ASSERT_EQ(p.exit_code, 0) << p.err;
  auto r = run_meshplan({"emit", "nginx", "-c", kStudios, "--plan", path});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("one copy of the model"), std::string::npos) << r.err;
  auto help = run_meshplan({"emit", "--help"});
  EXPECT_NE(help.out.find("nginx"), std::string::npos);
}

}  // namespace
}  // namespace meshplan::replicas_cli_test
