// vLLM's multi-node form without Ray (docs/serving/parallelism_scaling.md): every node runs
// `vllm serve` with --nnodes, --node-rank and --master-addr, all but node 0 with --headless;
// VLLM_HOST_IP is the node's own address; a pipeline's split goes in VLLM_PP_LAYER_PARTITION.
#include "deploy/writers/vllm_launch.hpp"

#include <gtest/gtest.h>

#include "tests/launch_inputs.hpp"

namespace meshplan::vllm_launch_test {
namespace {

TEST(vllm_launch_test, pipeline_plan_gives_pp_and_the_layer_partition_per_node) {
  auto in = testing::launch_inputs(testing::kLoopback, testing::kLoopbackPlan);
  in->launch.model = "/models/m";
  auto lines = testing::command_lines(write_vllm(in->input()));
  ASSERT_EQ(lines.size(), 3u);
  std::vector<std::string> ips = {"127.0.0.2", "127.0.0.3", "127.0.0.1"};
  for (size_t i = 0; i < 3; ++i) {
    const std::string& l = lines[i];
    EXPECT_EQ(l.rfind("VLLM_HOST_IP=" + ips[i] + " ", 0), 0u) << l;
    EXPECT_NE(l.find(" VLLM_PP_LAYER_PARTITION=10,6,16 vllm serve /models/m -tp 1 -pp 3 "
                     "--nnodes 3 --node-rank " +
                     std::to_string(i) + " --master-addr 127.0.0.2 --master-port 29501"),
              std::string::npos)
        << l;
    EXPECT_EQ(l.find("--headless") != std::string::npos, i > 0) << l;
  }
}

TEST(vllm_launch_test, tensor_plan_gives_tp_over_the_ranks) {
  auto in =
      testing::launch_inputs(testing::kStudios, "tests/fixtures/launch/studios_tensor_plan.json");
  auto lines = testing::command_lines(write_vllm(in->input()));
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_NE(lines[0].find(" -tp 4 -pp 1 --nnodes 4 --node-rank 0 "), std::string::npos) << lines[0];
  EXPECT_EQ(lines[0].find("VLLM_PP_LAYER_PARTITION"), std::string::npos);
}

}  // namespace
}  // namespace meshplan::vllm_launch_test
