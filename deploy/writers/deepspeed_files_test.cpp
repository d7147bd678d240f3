// DeepSpeed's rules (deepspeed/launcher/runner.py): hostfile lines match ^(\S+)\s+slots=(\d+),
// '#' lines are skipped, a host appears once; .deepspeed_env is split at each line's first '='
// with no comment handling, so every line must be KEY=VALUE.
#include "deploy/writers/deepspeed_files.hpp"

#include <gtest/gtest.h>

#include <regex>
#include <set>
#include <sstream>

#include "tests/launch_inputs.hpp"

namespace meshplan::deepspeed_files_test {
namespace {

TEST(deepspeed_files_test, hostfile_follows_the_runner_rule_once_per_host_in_rank_order) {
  auto in = testing::launch_inputs(testing::kLoopback, testing::kLoopbackPlan);
  std::string text = write_deepspeed_hostfile(in->input());
  std::regex rule(R"(^(\S+)\s+slots=(\d+))");
  std::vector<std::string> hosts;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::smatch m;
    ASSERT_TRUE(std::regex_search(line, m, rule)) << line;
    hosts.push_back(m[1]);
    EXPECT_EQ(m[2], "1");
  }
  EXPECT_EQ(hosts, (std::vector<std::string>{"node-b", "node-c", "node-a"}));
  EXPECT_NE(text.find("--master_addr 127.0.0.2 --master_port 29500 train.py"), std::string::npos)
      << text;
}

TEST(deepspeed_files_test, env_file_has_key_value_lines_only) {
  auto in = testing::launch_inputs(testing::kLoopback, testing::kLoopbackPlan);
  in->envs = {"NCCL_DEBUG=WARN"};
  std::string text = write_deepspeed_env(in->input());
  std::regex rule(R"(^[A-Za-z_][A-Za-z0-9_]*=.*$)");
  std::istringstream lines(text);
  std::set<std::string> keys;
  for (std::string line; std::getline(lines, line);) {
    EXPECT_TRUE(std::regex_match(line, rule)) << line;
    keys.insert(line.substr(0, line.find('=')));
  }
  EXPECT_EQ(keys, (std::set<std::string>{"NCCL_SOCKET_IFNAME", "GLOO_SOCKET_IFNAME", "NCCL_IB_HCA",
                                         "NCCL_DEBUG"}));
  // One file for every node: the exact names of all nodes' devices, in rank order.
  EXPECT_NE(text.find("NCCL_IB_HCA==mlx5_1:1,mlx5_0:1\n"), std::string::npos) << text;
  EXPECT_NE(text.find("NCCL_SOCKET_IFNAME==lo\n"), std::string::npos) << text;
}

}  // namespace
}  // namespace meshplan::deepspeed_files_test
