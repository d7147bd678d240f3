// The `ray up` file against Ray's cluster schema (python/ray/autoscaler/ray-schema.json, which
// sets additionalProperties: false at the top level) and the local provider's keys
// (autoscaler/local/example-full.yaml); the manual `ray start` lines against `ray start` flags.
#include "lib/emit/ray_cluster.hpp"

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <nlohmann/json.hpp>
#include <regex>
#include <set>

#include "lib/core/error.hpp"
#include "tests/launch_inputs.hpp"

namespace meshplan {
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

TEST(ray_cluster_test, needs_an_ssh_user) {
  auto in = testing::launch_inputs(testing::kStudios);
  EXPECT_THROW(write_ray_cluster(in->input()), Error);
}

}  // namespace
}  // namespace meshplan
