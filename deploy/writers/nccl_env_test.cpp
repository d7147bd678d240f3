// NCCL's variables in their exact-name forms (NCCL env docs: "=" makes the list exact; without
// it "en0" is a prefix and "mlx5_1" also matches mlx5_10..19), one block per rank.
#include "deploy/writers/nccl_env.hpp"

#include <gtest/gtest.h>

#include "tests/launch_inputs.hpp"

namespace meshplan::nccl_env_test {
namespace {

TEST(nccl_env_test, exact_interface_and_hca_names_per_rank) {
  auto in = testing::launch_inputs(testing::kLoopback, testing::kLoopbackPlan);
  LaunchLayout l = build_launch_layout(in->input());
  auto vars = nccl_variables(l, 0);
  ASSERT_EQ(vars.size(), 3u);
  EXPECT_EQ(vars[0], (std::pair<std::string, std::string>{"NCCL_SOCKET_IFNAME", "=lo"}));
  EXPECT_EQ(vars[1], (std::pair<std::string, std::string>{"GLOO_SOCKET_IFNAME", "lo"}));
  EXPECT_EQ(vars[2], (std::pair<std::string, std::string>{"NCCL_IB_HCA", "=mlx5_1:1"}));
}

// A Mac's rdma_enX devices are JACCL's Thunderbolt RDMA; NCCL does not run on macOS, so no
// NCCL_IB_HCA names them (Gloo's interface still applies to torch on a Mac).
TEST(nccl_env_test, macs_get_socket_interfaces_and_no_apple_rdma_devices) {
  auto in = testing::launch_inputs(testing::kStudios);
  LaunchLayout l = build_launch_layout(in->input());
  auto vars = nccl_variables(l, 0);
  ASSERT_EQ(vars.size(), 2u);
  EXPECT_EQ(vars[0], (std::pair<std::string, std::string>{"NCCL_SOCKET_IFNAME", "=en0"}));
  EXPECT_EQ(vars[1], (std::pair<std::string, std::string>{"GLOO_SOCKET_IFNAME", "en0"}));
  std::string text = write_nccl_env(in->input());
  EXPECT_NE(text.find("# rank 3: m3-ultra-4\nexport NCCL_SOCKET_IFNAME==en0\n"), std::string::npos)
      << text;
  EXPECT_EQ(text.find("rdma_en"), std::string::npos) << text;
}

// Over a network, collectives go on the fastest switch that holds every rank (its interface found
// by subnet), while the coordinator stays on the management address.
TEST(nccl_env_test, network_ranks_use_the_interface_on_their_fastest_switch) {
  auto in = testing::launch_inputs("tests/fixtures/launch/two_networks.yaml");
  LaunchLayout l = build_launch_layout(in->input());
  ASSERT_EQ(l.transport, "network");
  for (size_t i = 0; i < 2; ++i) {
    auto vars = nccl_variables(l, i);
    ASSERT_EQ(vars.size(), 3u);
    EXPECT_EQ(vars[0].second, "=enp1s0f0");
    EXPECT_EQ(vars[1].second, "enp1s0f0");
    EXPECT_EQ(vars[2].second, "=mlx5_0:1");
  }
  EXPECT_EQ(l.reachable(0, "x"), "10.0.0.1");
}

// Each GPU of an HGX node has its own HCA: NCCL may use every one of them, not only the one of the
// bootstrap interface. A GPU whose NIC is known only as "NIC5" (topo -m without its legend) adds
// nothing.
TEST(nccl_env_test, a_multi_gpu_host_lists_the_hca_nearest_each_gpu) {
  auto in = testing::launch_inputs("tests/fixtures/launch/two_hgx_rails.yaml");
  LaunchLayout l = build_launch_layout(in->input());
  auto a = nccl_variables(l, 0), b = nccl_variables(l, 1);
  ASSERT_EQ(a.size(), 3u);
  EXPECT_EQ(a[0].second, "=ib0");
  EXPECT_EQ(a[2].second,
            "=mlx5_0:1,mlx5_1:1,mlx5_2:1,mlx5_3:1,mlx5_4:1,mlx5_5:1,mlx5_6:1,mlx5_7:1");
  ASSERT_EQ(b.size(), 3u);
  EXPECT_EQ(b[2].second, "=mlx5_0:1,mlx5_1:1,mlx5_2:1,mlx5_3:1,mlx5_5:1,mlx5_6:1,mlx5_7:1");
}

TEST(nccl_env_test, no_hca_variable_for_a_host_without_rdma_devices) {
  auto in = testing::launch_inputs(testing::kLoopback, testing::kLoopbackPlan);
  LaunchLayout l = build_launch_layout(in->input());
  EXPECT_EQ(nccl_variables(l, 1).size(), 2u);  // node-c has no RDMA device
}

}  // namespace
}  // namespace meshplan::nccl_env_test
