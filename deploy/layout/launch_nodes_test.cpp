// The layout every launcher shares: the plan's rank order (not the file's), management addresses
// and interfaces, RDMA devices on the links used, and the checks on values and plans.
#include "deploy/layout/launch_nodes.hpp"

#include <gtest/gtest.h>

#include "lib/core/error.hpp"
#include "tests/launch_inputs.hpp"

namespace meshplan::launch_nodes_test {
namespace {

using testing::launch_inputs;

TEST(launch_nodes_test, nodes_follow_the_plan_rank_order_with_their_addresses) {
  auto in = launch_inputs(testing::kLoopback, testing::kLoopbackPlan);
  LaunchLayout l = build_launch_layout(in->input());
  ASSERT_EQ(l.nodes.size(), 3u);
  EXPECT_EQ(l.nodes[0].host->name, "node-b");
  EXPECT_EQ(l.nodes[1].host->name, "node-c");
  EXPECT_EQ(l.nodes[2].host->name, "node-a");
  EXPECT_EQ(l.nodes[0].address, "127.0.0.2");
  EXPECT_EQ(l.nodes[0].interface, "lo");
  EXPECT_EQ(l.nodes[0].rdma_devices, std::vector<std::string>{"mlx5_1"});
  EXPECT_TRUE(l.nodes[1].rdma_devices.empty());
  EXPECT_EQ(l.backend, "ethernet");
  EXPECT_EQ(l.strategy, "pipeline");
  EXPECT_TRUE(splits_by_layers(l));
  EXPECT_EQ(layer_counts(l, "x"), (std::vector<int>{10, 6, 16}));
}

TEST(launch_nodes_test, thunderbolt_mesh_ranks_use_the_rdma_devices_of_their_cables) {
  auto in = launch_inputs(testing::kStudios);
  LaunchLayout l = build_launch_layout(in->input());
  ASSERT_EQ(l.nodes.size(), 4u);
  EXPECT_EQ(l.backend, "jaccl");
  EXPECT_EQ(l.nodes[0].address, "10.0.0.1");      // en0 on the switch, never a Thunderbolt /30
  EXPECT_EQ(l.nodes[0].rdma_devices.size(), 3u);  // one cable to each other host
  EXPECT_FALSE(l.from_plan);
  EXPECT_FALSE(splits_by_layers(l));
  EXPECT_THROW(layer_counts(l, "llama-rpc"), Error);
}

TEST(launch_nodes_test, a_plan_is_required_where_the_format_says_so) {
  auto in = launch_inputs(testing::kLoopback);
  try {
    require_plan(in->input(), "vllm", "-tp comes from the plan");
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_EQ(exit_code(e.kind()), 2);
    EXPECT_NE(std::string(e.what()).find("vllm needs --plan PLAN: -tp comes from the plan"),
              std::string::npos);
  }
}

TEST(launch_nodes_test, line_breaks_in_values_are_refused) {
  auto in = testing::launch_inputs(testing::kLoopback, testing::kLoopbackPlan);
  in->cluster.name = "x\ntouch PWNED";
  EXPECT_THROW(build_launch_layout(in->input()), Error);
  in->cluster.name = "x";
  in->launch.program = "a.py\nrm -rf x";
  EXPECT_THROW(build_launch_layout(in->input()), Error);
  in->launch.program = "";
  in->envs = {"A=1\nB"};
  EXPECT_THROW(build_launch_layout(in->input()), Error);
  in->envs = {};
  EXPECT_NO_THROW(build_launch_layout(in->input()));
}

// Every writer of one launch reads one layout: built on first use, kept, and shared by copies of
// the input (which differ only in options the layout does not read).
TEST(launch_nodes_test, an_input_builds_its_layout_once_and_its_copies_share_it) {
  auto in = launch_inputs(testing::kLoopback, testing::kLoopbackPlan);
  const EmitInput input = in->input();
  const LaunchLayout& first = input.layout();
  EXPECT_EQ(&input.layout(), &first);
  EmitInput copy = input;
  copy.launch.engine = "vllm";
  EXPECT_EQ(&copy.layout(), &first);
  EXPECT_EQ(first.nodes[0].host->name, "node-b");
  const EmitInput other = in->input();
  EXPECT_NE(&other.layout(), &first);
  EXPECT_EQ(other.layout().nodes.size(), first.nodes.size());
}

// An input whose layout cannot be built fails only when a writer asks for it, every time.
TEST(launch_nodes_test, an_invalid_layout_fails_only_when_asked_for) {
  auto in = launch_inputs(testing::kLoopback, testing::kLoopbackPlan);
  in->cluster.name = "x\ntouch PWNED";
  const EmitInput input = in->input();
  EXPECT_THROW(input.layout(), Error);
  EXPECT_THROW(input.layout(), Error);
}

TEST(launch_nodes_test, hostfile_words_are_single_tokens) {
  EXPECT_EQ(hostfile_word("admin@mac-1.local", "ssh target", "h"), "admin@mac-1.local");
  for (std::string bad : {"", "-oProxyCommand=x", "a b", "a;b", "a#b", "a:b"})
    EXPECT_THROW(hostfile_word(bad, "ssh target", "h"), Error) << bad;
}

TEST(launch_nodes_test, shell_commands_quote_values_and_keep_assignments) {
  EXPECT_EQ(shell_command({{"A", "=en0"}, {"B", "x y"}}, {"run", "--flag=1", "a'b"}),
            "A==en0 B='x y' run --flag=1 'a'\"'\"'b'");
}

}  // namespace
}  // namespace meshplan::launch_nodes_test
