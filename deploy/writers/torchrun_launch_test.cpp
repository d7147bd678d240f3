// One torchrun line per node: static rendezvous flags (torch.distributed.run), node i = rank i,
// the master on rank 0's management address, the node's interface variables in front.
// tests/launchers_cli_test.cpp runs these lines with Gloo.
#include "deploy/writers/torchrun_launch.hpp"

#include <gtest/gtest.h>

#include "tests/launch_inputs.hpp"

namespace meshplan::torchrun_launch_test {
namespace {

TEST(torchrun_launch_test, each_node_line_names_its_rank_and_the_master) {
  auto in = testing::launch_inputs(testing::kLoopback, testing::kLoopbackPlan);
  in->launch.port = 29411;
  in->launch.program = "job.py";
  auto lines = testing::command_lines(write_torchrun(in->input()));
  ASSERT_EQ(lines.size(), 3u);
  std::vector<std::string> hca = {" NCCL_IB_HCA==mlx5_1:1", "", " NCCL_IB_HCA==mlx5_0:1"};
  for (size_t i = 0; i < 3; ++i)
    EXPECT_EQ(lines[i],
              "NCCL_SOCKET_IFNAME==lo GLOO_SOCKET_IFNAME=lo" + hca[i] +
                  " torchrun --nnodes=3 --nproc_per_node=1 --node_rank=" + std::to_string(i) +
                  " --master_addr=127.0.0.2 --master_port=29411 job.py");
}

}  // namespace
}  // namespace meshplan::torchrun_launch_test
