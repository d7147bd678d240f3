// The README's typical sessions run as written: every line of each block under
// `<!-- session: NAME -->`, under sh, in a folder where cluster.json is the cluster the session is
// about (the `discover` line probes real hosts over SSH, which tests/ssh does against a real sshd;
// here its output file stands in for it). Each line must exit 0 and leave what the next one reads;
// the launch must be the engine's the README names, for the plan's hosts.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "lib/cluster/cluster_loader.hpp"
#include "lib/cluster/cluster_writer.hpp"
#include "tests/test_support.hpp"

namespace meshplan::readme_session_test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using testing::read_text;
using testing::source_path;

std::vector<std::string> session_lines(const std::string& name) {
  try {
    return testing::readme_session_lines(name);
  } catch (const std::exception& e) {
    ADD_FAILURE() << e.what();
    return {};
  }
}

// Runs the session `name` in a fresh folder whose cluster.json is `cluster` (a path in the
// source tree) written as `discover` writes it, JSON; returns the folder.
std::string run_session(const std::string& name, const std::string& cluster) {
  const std::string dir = testing::temp_dir();
  const std::string file = source_path(cluster);
  std::ofstream(dir + "/cluster.json")
      << write_cluster_json(load_cluster(read_text(file), file, Catalog::builtin()));
  const std::string bin = fs::path(MESHPLAN_BINARY).parent_path().string();
  const auto lines = session_lines(name);
  int ran = 0;
  bool discovered = false;
  for (const std::string& line : lines) {
    if (line.rfind("meshplan discover", 0) == 0) {
      discovered = true;
      continue;
    }
    EXPECT_EQ(line.rfind("meshplan ", 0), 0u) << name << ": " << line;
    const std::string command = "cd '" + dir + "' && export PATH='" + bin + "':\"$PATH\" && { " +
                                line + "\n} >/dev/null 2>&1";
    EXPECT_EQ(std::system(command.c_str()), 0) << name << ": " << line;
    ++ran;
  }
  EXPECT_TRUE(discovered) << name << ": the session starts from discover";
  EXPECT_GE(ran, 3) << name;
  return dir;
}

TEST(readme_session_test, the_mac_session_runs_as_written) {
  const std::string dir = run_session("mac", "examples/clusters/mac-studio-m3-ultra-x4.yaml");
  EXPECT_EQ(session_lines("mac").size(), 6u);
  EXPECT_GT(fs::file_size(dir + "/cluster.svg"), 0u);
  const json plan = json::parse(read_text(dir + "/plan.json"));
  EXPECT_EQ(plan["engine"], "mlx-lm");
  // The launch is mlx-lm's, for the plan's hosts, with its checklist.
  const std::string hostfile = read_text(dir + "/launch/mlx-hostfile.json");
  const json hosts = json::parse(hostfile)["hosts"];
  EXPECT_EQ(hosts.size(), plan["ranks"].size());
  EXPECT_TRUE(fs::exists(dir + "/launch/mlx-launch.sh"));
  EXPECT_FALSE(fs::exists(dir + "/launch/vllm.sh"));
  EXPECT_NE(read_text(dir + "/launch/LAUNCH.md").find("Check that it answers"), std::string::npos);
}

TEST(readme_session_test, the_gpu_session_runs_as_written) {
  const std::string dir = run_session("gpu", "tests/fixtures/launch/two_hgx_rails.yaml");
  const json plan = json::parse(read_text(dir + "/plan.json"));
  // vLLM over both nodes, as the README's comments say: tensor parallel over all 16 GPUs.
  EXPECT_EQ(plan["engine"], "vllm");
  EXPECT_EQ(plan["strategy"], "tensor");
  ASSERT_EQ(plan["ranks"].size(), 2u);
  for (const json& h : plan["hosts"])
    EXPECT_EQ(h["tp"], 8) << h;
  const std::string vllm = read_text(dir + "/launch/vllm.sh");
  EXPECT_NE(vllm.find("vllm serve MODEL -tp 16 -pp 1 --nnodes 2 --node-rank 0"), std::string::npos)
      << vllm;
  for (const char* file : {"vllm.sh", "nccl-env.sh", "slurm.sbatch", "LAUNCH.md"})
    EXPECT_TRUE(fs::exists(dir + "/launch/" + file)) << file;
  // The runners' files are written by name only; no Thunderbolt between the ranks, no setup.
  EXPECT_FALSE(fs::exists(dir + "/launch/torchrun.sh"));
  EXPECT_FALSE(fs::exists(dir + "/launch/setup.sh"));
}

TEST(readme_session_test, the_serving_session_runs_as_written) {
  const std::string dir = run_session("serving", "examples/clusters/mac-studio-m3-ultra-x4.yaml");
  const json plan = json::parse(read_text(dir + "/plan.json"));
  EXPECT_EQ(plan["serving"]["objective"], "throughput");
  // Copies of the model (replicas, or routed hosts that each hold every layer) behind nginx,
  // each launched by mlx-lm on its own hosts.
  int replicas = 0;
  while (fs::exists(dir + "/launch/replica-" + std::to_string(replicas + 1) + "/mlx-launch.sh"))
    ++replicas;
  EXPECT_GE(replicas, 2);
  const std::string nginx = read_text(dir + "/launch/nginx.conf");
  size_t servers = 0;
  for (size_t at = nginx.find("weight="); at != std::string::npos;
       at = nginx.find("weight=", at + 1))
    ++servers;
  EXPECT_EQ(servers, static_cast<size_t>(replicas)) << nginx;
  EXPECT_NE(read_text(dir + "/launch/LAUNCH.md").find("nginx"), std::string::npos);
}

}  // namespace
}  // namespace meshplan::readme_session_test
