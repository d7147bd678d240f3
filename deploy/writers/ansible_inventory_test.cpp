// The inventory in Ansible's YAML form (ansible.builtin.yaml: all -> children -> group -> hosts
// -> host -> vars); tests/launchers_cli_test.cpp reads it back with ansible-inventory.
#include "deploy/writers/ansible_inventory.hpp"

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include "tests/launch_inputs.hpp"

namespace meshplan::ansible_inventory_test {
namespace {

TEST(ansible_inventory_test, hosts_under_role_groups_with_vars_and_under_their_os) {
  auto in = testing::launch_inputs(testing::kStudios);
  in->launch.user = "admin";
  YAML::Node y = YAML::Load(write_ansible_inventory(in->input()));
  YAML::Node groups = y["all"]["children"];
  ASSERT_TRUE(groups["head"]["hosts"]["m3-ultra-1"]);
  YAML::Node head = groups["head"]["hosts"]["m3-ultra-1"];
  EXPECT_EQ(head["ansible_host"].as<std::string>(), "m3-ultra-1");
  EXPECT_EQ(head["ansible_user"].as<std::string>(), "admin");
  EXPECT_EQ(head["chip"].as<std::string>(), "m3-ultra-80c");
  EXPECT_EQ(head["memory_bytes"].as<uint64_t>(), 549755813888u);
  EXPECT_EQ(head["rank"].as<int>(), 0);
  EXPECT_EQ(head["backend"].as<std::string>(), "jaccl");
  EXPECT_EQ(groups["workers"]["hosts"].size(), 3u);
  EXPECT_EQ(groups["workers"]["hosts"]["m3-ultra-4"]["rank"].as<int>(), 3);
  EXPECT_EQ(groups["macos"]["hosts"].size(), 4u);
  EXPECT_FALSE(groups["linux"]);
}

}  // namespace
}  // namespace meshplan::ansible_inventory_test
