// The `ray up` file against Ray's cluster schema (python/ray/autoscaler/ray-schema.json, which
// sets additionalProperties: false at the top level) and the local provider's keys
// (autoscaler/local/example-full.yaml); the manual `ray start` lines against `ray start` flags.
#include "deploy/writers/ray_cluster.hpp"

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <nlohmann/json.hpp>
#include <regex>
#include <set>

#include "lib/core/error.hpp"
#include "tests/launch_inputs.hpp"

namespace meshplan::ray_cluster_test {
namespace {

// Ray's top-level keys (ray-schema.json @01a09fc, and the ones later versions added).
const std::set<std::string> kRayKeys = {"cluster_name",
                                        "min_workers",
                                        "max_workers",
                                        "initial_workers",
                                        "autoscaling_mode",
                                        "target_utilization_fraction",
                                        "idle_timeout_minutes",
                                        "upscaling_speed",
                                        "provider",
                                        "auth",
                                        "docker",
                                        "head_node",
                                        "worker_nodes",
                                        "available_node_types",
                                        "head_node_type",
                                        "file_mounts",
                                        "cluster_synced_files",
                                        "file_mounts_sync_continuously",
                                        "rsync_exclude",
                                        "rsync_filter",
                                        "initialization_commands",
                                        "setup_commands",
                                        "head_setup_commands",
                                        "worker_setup_commands",
                                        "head_start_ray_commands",
                                        "worker_start_ray_commands",
                                        "no_restart"};

TEST(ray_cluster_test, yaml_has_only_keys_ray_allows_and_the_local_provider) {
  auto in = testing::launch_inputs(testing::kLoopback, testing::kLoopbackPlan);
  in->launch.user = "admin";
  std::string text = write_ray_cluster(in->input());
  YAML::Node y = YAML::Load(text);
  std::set<std::string> required = {"cluster_name", "provider"};
  for (const auto& kv : y) {
    std::string key = kv.first.as<std::string>();
    EXPECT_TRUE(kRayKeys.count(key)) << key;
    required.erase(key);
  }
  EXPECT_TRUE(required.empty());
  EXPECT_EQ(y["cluster_name"].as<std::string>(), "loopback");
  EXPECT_EQ(y["provider"]["type"].as<std::string>(), "local");
  EXPECT_EQ(y["provider"]["head_ip"].as<std::string>(), "127.0.0.2");  // rank 0
  EXPECT_EQ(y["provider"]["worker_ips"].as<std::vector<std::string>>(),
            (std::vector<std::string>{"127.0.0.3", "127.0.0.1"}));
  EXPECT_EQ(y["auth"]["ssh_user"].as<std::string>(), "admin");
  EXPECT_EQ(y["auth"].size(), 1u);  // auth allows ssh_user, ssh_private_key, ssh_public_key only
  EXPECT_EQ(y["min_workers"].as<int>(), 2);
  EXPECT_EQ(y["max_workers"].as<int>(), 2);
  auto head = y["head_start_ray_commands"].as<std::vector<std::string>>();
  ASSERT_EQ(head.size(), 2u);
  EXPECT_EQ(head[0], "ray stop");
  EXPECT_EQ(head[1].rfind("ray start --head --port=6379 --node-ip-address=127.0.0.2 ", 0), 0u);
  EXPECT_NE(head[1].find("--autoscaling-config=~/ray_bootstrap_config.yaml"), std::string::npos);
}

TEST(ray_cluster_test, manual_start_lines_pin_a_resource_and_memory_per_node) {
  auto in = testing::launch_inputs(testing::kStudios);
  in->launch.user = "admin";
  std::string text = write_ray_cluster(in->input());
  std::regex line(R"(# on (\S+): ray start (--head --port=6379|--address=10\.0\.0\.1:6379) )"
                  R"(--node-ip-address=(\S+) '--resources=(\{.*\})' --memory=(\d+)\n)");
  int n = 0;
  for (std::sregex_iterator it(text.begin(), text.end(), line), end; it != end; ++it, ++n) {
    auto resources = nlohmann::json::parse((*it)[4].str());
    EXPECT_EQ(resources, nlohmann::json({{"node:" + (*it)[1].str(), 1}}));
    EXPECT_EQ((*it)[3], "10.0.0." + std::to_string(n + 1));
    EXPECT_EQ((*it)[2] == "--head --port=6379", n == 0);
    EXPECT_EQ((*it)[5], n < 2 ? "549755813888" : "274877906944");  // 512 and 256 GiB
  }
  EXPECT_EQ(n, 4) << text;
}

// The manual line of node `host` (its words after "# on HOST: ").
std::string manual_line(const std::string& text, const std::string& host) {
  size_t at = text.find("# on " + host + ": ");
  EXPECT_NE(at, std::string::npos) << text;
  size_t start = at + host.size() + 7;
  return text.substr(start, text.find('\n', start) - start);
}

// `ray up` runs one worker command on every worker (with RAY_HEAD_IP set, autoscaler
// command_runner): run on a host whose addresses include node-c's, it must start Ray with the
// options of node-c's manual line, the head's address from RAY_HEAD_IP.
TEST(ray_cluster_test, the_ray_up_worker_command_sets_what_each_manual_line_sets) {
  auto in = testing::launch_inputs(testing::kLoopback, testing::kLoopbackPlan);
  in->launch.user = "admin";
  std::string text = write_ray_cluster(in->input());
  YAML::Node y = YAML::Load(text);
  auto workers = y["worker_start_ray_commands"].as<std::vector<std::string>>();
  ASSERT_EQ(workers.size(), 2u);
  for (const std::string host : {"node-c", "node-a"}) {
    std::string address = host == "node-c" ? "127.0.0.3" : "127.0.0.1";
    std::string fake = "hostname() { echo '192.0.2.7 " + address + "'; }\n";
    std::string from_up = testing::run_recorded(
        testing::temp_dir(), fake + "RAY_HEAD_IP=127.0.0.2\n" + workers[1] + "\n", {"ray"});
    std::string by_hand =
        testing::run_recorded(testing::temp_dir(), manual_line(text, host) + "\n", {"ray"});
    EXPECT_EQ(from_up, by_hand) << workers[1];
    EXPECT_NE(from_up.find("arg <--resources={\"node:" + host + "\":1}>"), std::string::npos)
        << from_up;
  }
  // A host with none of the workers' addresses is refused, not started without its options.
  EXPECT_THROW(
      testing::run_recorded(testing::temp_dir(),
                            "hostname() { echo 192.0.2.7; }\n" + workers[1] + "\n", {"ray"}),
      std::runtime_error);
}

// Where Ray is written for one model on NVIDIA hosts, vLLM's command that uses it is written too:
// `--distributed-executor-backend ray` on the head, each node's vLLM and NCCL variables in front
// of its `ray start` (Ray's workers inherit the raylet's environment).
TEST(ray_cluster_test, nvidia_hosts_get_vllm_on_ray_with_each_nodes_variables) {
  auto in = testing::launch_inputs("tests/fixtures/launch/two_hgx_rails.yaml",
                                   "tests/fixtures/launch/two_hgx_pipeline_plan.json");
  in->launch.user = "admin";
  in->launch.model = "meta-llama/Llama-3.1-405B";
  EXPECT_TRUE(ray_runs_an_engine(in->input()));
  std::string text = write_ray_cluster(in->input());
  EXPECT_NE(text.find("# VLLM_PP_LAYER_PARTITION=70,56 vllm serve meta-llama/Llama-3.1-405B -tp 8 "
                      "-pp 2 --distributed-executor-backend ray --host 0.0.0.0\n"),
            std::string::npos)
      << text;
  std::string b = manual_line(text, "hgx-b");
  // Ray, vLLM and NCCL meet on the InfiniBand network (ib0), not on the management address.
  EXPECT_EQ(b.rfind("VLLM_HOST_IP=10.9.0.2 NCCL_SOCKET_IFNAME==ib0 GLOO_SOCKET_IFNAME=ib0 ", 0), 0u)
      << b;
  EXPECT_NE(b.find(" ray start --address=10.9.0.1:6379 --node-ip-address=10.9.0.2 "),
            std::string::npos)
      << b;
  // Macs run no engine on Ray: `emit all` leaves Ray out there.
  auto macs = testing::launch_inputs(testing::kStudios);
  EXPECT_FALSE(ray_runs_an_engine(macs->input()));
}

TEST(ray_cluster_test, needs_an_ssh_user) {
  auto in = testing::launch_inputs(testing::kStudios);
  EXPECT_THROW(write_ray_cluster(in->input()), Error);
}

}  // namespace
}  // namespace meshplan::ray_cluster_test
