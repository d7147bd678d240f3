// From a plan to its launch through the real binary: a hostfile on Wi-Fi beside Thunderbolt cables
// is named by `check --hostfile`; a one-host plan runs mlx_lm.server alone; a plan no engine runs
// says what would instead of a launch line; a pipeline solver asked for plans a pipeline; a
// pipeline whose MLX ranks run last stage first names both numbers in the launch files.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "tests/test_support.hpp"

namespace meshplan::plan_to_launch_cli_test {
namespace {

using testing::read_text;
using testing::run_meshplan;
using testing::source_path;
using testing::temp_dir;

std::string write(const std::string& dir, const std::string& name, const std::string& text) {
  const std::string path = dir + "/" + name;
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

// Three Macs cabled by Thunderbolt 5 in a mesh, each also on Wi-Fi.
const char* kWifiAndThunderbolt = R"(name: wifi-and-thunderbolt
hosts:
  - {name: mac-1, chip: m4-pro-20c, memory: 64GiB, interfaces: [{name: en1, kind: wifi, ipv4: 10.0.1.11, prefix: 24}]}
  - {name: mac-2, chip: m4-pro-20c, memory: 64GiB, interfaces: [{name: en1, kind: wifi, ipv4: 10.0.1.12, prefix: 24}]}
  - {name: mac-3, chip: m4-pro-20c, memory: 64GiB, interfaces: [{name: en1, kind: wifi, ipv4: 10.0.1.13, prefix: 24}]}
links:
  - {topology: full-mesh, kind: tb5, hosts: all}
  - {kind: wifi, hosts: all, subnet: 10.0.1.0/24}
)";

const char* kWifiHostfile =
    R"([{"ssh": "mac-1", "ips": ["10.0.1.11"]}, {"ssh": "mac-2", "ips": ["10.0.1.12"]},
        {"ssh": "mac-3", "ips": ["10.0.1.13"]}])";

TEST(plan_to_launch_cli_test, hostfile_on_wifi_beside_thunderbolt_is_a_warning_per_pair) {
  const std::string dir = temp_dir();
  const std::string cluster = write(dir, "c.yaml", kWifiAndThunderbolt);
  const std::string hosts = write(dir, "hosts.json", kWifiHostfile);
  auto text = run_meshplan({"check", "-c", cluster, "--hostfile", hosts});
  // A warning: the ring runs, slowly; the exit code stays 0 as for every check warning.
  EXPECT_EQ(text.exit_code, 0) << text.out << text.err;
  EXPECT_EQ(text.out.find("every pair the backend uses has a working link"), std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("warning: rank 1 (mac-2) lists 10.0.1.12 on en1 (wifi) for its left "
                          "neighbour rank 0 (mac-1), but a Thunderbolt 5 cable joins"),
            std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("meshplan emit mlx-hostfile"), std::string::npos) << text.out;

  auto json = run_meshplan({"check", "-c", cluster, "--hostfile", hosts, "--json"});
  EXPECT_EQ(json.exit_code, 0) << json.err;
  auto report = nlohmann::json::parse(json.out);
  EXPECT_TRUE(report["hostfile"]["valid"].get<bool>());
  std::set<std::string> ranks_named;
  for (const auto& issue : report["hostfile"]["issues"]) {
    EXPECT_EQ(issue["code"], "slower-network-address");
    EXPECT_EQ(issue["severity"], "warning");
    EXPECT_NE(issue["fix"].get<std::string>().find("the address `meshplan setup` gives it"),
              std::string::npos)
        << issue["fix"];
    ranks_named.insert(issue["message"].get<std::string>().substr(0, 6));
  }
  // Every rank of the ring, one pair each.
  EXPECT_EQ(ranks_named, (std::set<std::string>{"rank 0", "rank 1", "rank 2"}));
}

TEST(plan_to_launch_cli_test, one_host_plan_runs_the_server_without_mlx_launch) {
  const std::string dir = temp_dir();
  const std::string cluster =
      write(dir, "one.yaml", "hosts: [{name: studio, chip: m3-ultra-80c, memory: 128GiB}]\n");
  auto plan =
      run_meshplan({"plan", "-c", cluster, "-m", "llama-3.3-70b-8bit", "-o", dir + "/plan.json"});
  ASSERT_EQ(plan.exit_code, 0) << plan.err;
  auto emit =
      run_meshplan({"emit", "all", "-c", cluster, "--plan", dir + "/plan.json", "-o", dir + "/l"});
  ASSERT_EQ(emit.exit_code, 0) << emit.err;
  const std::string launch = read_text(dir + "/l/mlx-launch.sh");
  EXPECT_NE(launch.find("\nmlx_lm.server --model MODEL --host 0.0.0.0\n"), std::string::npos)
      << launch;
  // The one command: no mlx.launch, no rank variable (the comment may name them).
  EXPECT_EQ(launch.find("\nmlx.launch "), std::string::npos) << launch;
  EXPECT_EQ(launch.find("MLX_RANK="), std::string::npos) << launch;
  // No hostfile and no per-rank variables for a single rank.
  EXPECT_FALSE(std::filesystem::exists(dir + "/l/mlx-hostfile.json"));
  EXPECT_FALSE(std::filesystem::exists(dir + "/l/mlx-env.sh"));
  // Asked for by name, mlx-env says there is nothing to export.
  auto env = run_meshplan({"emit", "mlx-env", "-c", cluster, "--plan", dir + "/plan.json"});
  ASSERT_EQ(env.exit_code, 0) << env.err;
  EXPECT_EQ(env.out.find("\nexport "), std::string::npos) << env.out;
  EXPECT_NE(env.out.find("One rank (studio)"), std::string::npos) << env.out;
}

TEST(plan_to_launch_cli_test, plan_no_engine_runs_says_what_would_instead_of_launch) {
  const std::string studios = source_path("examples/clusters/mac-studio-m3-ultra-x4.yaml");
  auto any = run_meshplan({"plan", "-c", studios, "-m", "llama-3.3-70b-8bit", "--engine", "any"});
  ASSERT_EQ(any.exit_code, 0) << any.err;  // the plan is valid
  EXPECT_EQ(any.out.find("Launch:"), std::string::npos) << any.out;
  EXPECT_NE(any.out.find("Not launched: no engine is chosen for this plan (any (--engine any)"),
            std::string::npos)
      << any.out;
  // Its engines line says mlx-lm runs the layout as planned: that is the engine to plan with.
  EXPECT_NE(any.out.find("plan again with --engine mlx-lm"), std::string::npos) << any.out;
  EXPECT_EQ(any.out.find("--engine vllm"), std::string::npos) << "vLLM does not run on Macs";

  auto mlx = run_meshplan({"plan", "-c", studios, "-m", "llama-3.3-70b-8bit"});
  ASSERT_EQ(mlx.exit_code, 0) << mlx.err;
  EXPECT_NE(mlx.out.find("Launch: save the plan"), std::string::npos) << mlx.out;
}

TEST(plan_to_launch_cli_test, asked_for_solver_plans_a_pipeline_or_fails) {
  const std::string studios = source_path("examples/clusters/mac-studio-m3-ultra-x4.yaml");
  for (const char* solver : {"even", "proportional"}) {
    auto r =
        run_meshplan({"plan", "-c", studios, "-m", "qwen3-235b-a22b-8bit", "--solver", solver});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("as a pipeline over"), std::string::npos) << solver << ": " << r.out;
    EXPECT_NE(r.out.find(std::string("Solver: ") + solver), std::string::npos)
        << solver << ": " << r.out;
  }
  // No pipeline fits four 64 GiB minis: the planner says so, and does not plan another strategy.
  auto none = run_meshplan({"plan", "-c", source_path("examples/clusters/mac-mini-m4-pro-x4.yaml"),
                            "-m", "qwen3-235b-a22b-8bit", "--solver", "even"});
  EXPECT_EQ(none.exit_code, 1) << none.out;
  EXPECT_NE(none.err.find("pipeline parallel is not possible"), std::string::npos) << none.err;
  EXPECT_EQ(none.err.find("tensor:"), std::string::npos) << none.err;
}

TEST(plan_to_launch_cli_test, mlx_ranks_last_stage_first_name_the_plan_rank) {
  const std::string dir = temp_dir();
  const std::string minis = source_path("examples/clusters/mac-mini-m4-pro-x4.yaml");
  auto plan = run_meshplan({"plan", "-c", minis, "-m", "llama-3.3-70b-8bit", "--strategy",
                            "pipeline", "-o", dir + "/plan.json"});
  ASSERT_EQ(plan.exit_code, 0) << plan.err;
  ASSERT_NE(plan.out.find("   0  mini-1  0-39"), std::string::npos) << plan.out;
  auto emit =
      run_meshplan({"emit", "all", "-c", minis, "--plan", dir + "/plan.json", "-o", dir + "/l"});
  ASSERT_EQ(emit.exit_code, 0) << emit.err;
  // mlx-lm's rank 0 loads the last layers, so the hostfile lists the plan's rank 1 first.
  auto hostfile = nlohmann::json::parse(read_text(dir + "/l/mlx-hostfile.json"));
  EXPECT_EQ(hostfile["hosts"][0]["ssh"], "mini-2");
  const std::string launch = read_text(dir + "/l/mlx-launch.sh");
  EXPECT_NE(launch.find("# MLX rank 0 (plan rank 1): mini-2 MLX_RANK=0; plan layers [40, 80)"),
            std::string::npos)
      << launch;
  EXPECT_NE(launch.find("# MLX rank 1 (plan rank 0): mini-1 MLX_RANK=1; plan layers [0, 40)"),
            std::string::npos)
      << launch;
  // The API answers on MLX rank 0, the plan's last stage.
  EXPECT_NE(read_text(dir + "/l/LAUNCH.md").find("(on mini-2) lists the model"), std::string::npos);
}

}  // namespace
}  // namespace meshplan::plan_to_launch_cli_test
