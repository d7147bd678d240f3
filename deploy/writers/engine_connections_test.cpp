// Each connection `check --live` tries is the one the launch files name: the port and address in
// the writer's own output, from the node that opens it.
#include "deploy/writers/engine_connections.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "deploy/writers/llama_rpc.hpp"
#include "deploy/writers/ray_cluster.hpp"
#include "deploy/writers/vllm_launch.hpp"
#include "tests/launch_inputs.hpp"

namespace meshplan::engine_connections_test {
namespace {

const char* kHgx = "tests/fixtures/launch/two_hgx_rails.yaml";
const char* kHgxPlan = "tests/fixtures/launch/two_hgx_pipeline_plan.json";

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(engine_connections_test, vllm_master_port_and_api_as_vllm_sh_names_them) {
  for (auto [cluster, plan] :
       {std::pair{kHgx, kHgxPlan}, std::pair{testing::kLoopback, testing::kLoopbackPlan}}) {
    auto in = testing::launch_inputs(cluster, plan);
    const EmitInput input = in->input();
    const std::string sh = write_vllm(input);
    auto c = engine_connections(input, "vllm");
    const auto& nodes = input.layout().nodes;
    ASSERT_EQ(c.size(), nodes.size()) << cluster;  // each node but 0 to the master, and the API
    for (size_t i = 0; i + 1 < c.size(); ++i) {
      EXPECT_EQ(c[i].what, "vLLM --master-port");
      EXPECT_EQ(c[i].listen_host, nodes[0].host->name);
      EXPECT_EQ(c[i].connect_host, nodes[i + 1].host->name);
      EXPECT_TRUE(
          has(sh, fmt::format("--master-addr {} --master-port {}", c[i].address, c[i].port)))
          << sh;
    }
    EXPECT_EQ(c.back().port, kVllmServePort);
    EXPECT_EQ(c.back().address, nodes[0].address);  // clients reach the API on the LAN
  }
  // The rendezvous is on ib0, where NCCL and Gloo run (as vllm.sh names it); the API on eno1.
  auto hgx = testing::launch_inputs(kHgx, kHgxPlan);
  auto c = engine_connections(hgx->input(), "vllm");
  EXPECT_EQ(c[0].address, "10.9.0.1");
  EXPECT_EQ(c[0].port, 29501);
  EXPECT_EQ(c.back().address, "10.0.0.1");
}

TEST(engine_connections_test, ray_gcs_port_when_the_nodes_run_unequal_ranks) {
  // Without a plan, so that ray-cluster.yaml is Ray's own start (vLLM's -tp needs equal nodes).
  auto in = testing::launch_inputs(kHgx);
  in->cluster.hosts[1].gpus.pop_back();  // 8 and 7 GPUs: vLLM's --nnodes cannot start them
  in->launch.user = "admin";
  const EmitInput input = in->input();
  ASSERT_TRUE(vllm_nodes_started_by_ray(input.layout()));
  auto c = engine_connections(input, "vllm");
  ASSERT_EQ(c.size(), 2u);
  EXPECT_EQ(c[0].what, "Ray GCS");
  EXPECT_EQ(c[0].listen_host, "hgx-a");
  EXPECT_EQ(c[0].connect_host, "hgx-b");
  const std::string yaml = write_ray_cluster(input);
  EXPECT_TRUE(has(yaml, fmt::format("ray start --head --port={} --node-ip-address={}", c[0].port,
                                    c[0].address)))
      << yaml;
  EXPECT_TRUE(has(yaml, fmt::format("--address={}:{}", c[0].address, c[0].port))) << yaml;
}

TEST(engine_connections_test, llama_rpc_server_ports_from_the_main_host) {
  for (auto [cluster, plan] :
       {std::pair{kHgx, kHgxPlan}, std::pair{testing::kLoopback, testing::kLoopbackPlan}}) {
    auto in = testing::launch_inputs(cluster, plan);
    const EmitInput input = in->input();
    const std::string sh = write_llama_rpc(input);
    auto c = engine_connections(input, "llama-rpc");
    const auto& nodes = input.layout().nodes;
    ASSERT_EQ(c.size(), nodes.size() - 1) << cluster;
    for (size_t i = 0; i < c.size(); ++i) {
      EXPECT_EQ(c[i].what, "llama.cpp rpc-server");
      EXPECT_EQ(c[i].listen_host, nodes[i].host->name);
      EXPECT_EQ(c[i].connect_host, nodes.back().host->name);
      EXPECT_TRUE(has(sh, fmt::format("rpc-server -H {} -p {}", c[i].address, c[i].port))) << sh;
      EXPECT_TRUE(has(sh, fmt::format("{}:{}", c[i].address, c[i].port))) << sh;  // --rpc
    }
  }
  auto hgx = testing::launch_inputs(kHgx, kHgxPlan);
  EXPECT_EQ(engine_connections(hgx->input(), "llama-rpc")[0].address, "10.9.0.1");  // ib0
  EXPECT_EQ(engine_connections(hgx->input(), "llama-rpc")[0].port, kRpcServerDefaultPort);
}

TEST(engine_connections_test, one_ephemeral_connection_per_pair_on_the_data_address) {
  auto in = testing::launch_inputs(kHgx, kHgxPlan);
  const EmitInput input = in->input();
  auto c = ephemeral_connections(input.layout());
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].listen_host, "hgx-a");
  EXPECT_EQ(c[0].connect_host, "hgx-b");
  EXPECT_EQ(c[0].address, "10.9.0.1");  // NCCL_SOCKET_IFNAME=ib0
  auto three = testing::launch_inputs(testing::kLoopback, testing::kLoopbackPlan);
  const EmitInput three_input = three->input();
  EXPECT_EQ(ephemeral_connections(three_input.layout()).size(), 3u);
}

TEST(engine_connections_test, ephemeral_port_in_the_upper_half_and_the_same_each_time) {
  for (size_t pair = 0; pair < 50; ++pair) {
    int p = ephemeral_probe_port(32768, 60999, pair);
    EXPECT_GE(p, 46884);
    EXPECT_LE(p, 60999);
    EXPECT_EQ(p, ephemeral_probe_port(32768, 60999, pair));
  }
  EXPECT_NE(ephemeral_probe_port(32768, 60999, 0), ephemeral_probe_port(32768, 60999, 1));
  EXPECT_EQ(ephemeral_probe_port(40000, 40000, 3), 40000);
  EXPECT_EQ(ephemeral_probe_port(0, 0, 0), ephemeral_probe_port(32768, 60999, 0));  // unread
}

TEST(engine_connections_test, none_for_mlx_engines) {
  auto in = testing::launch_inputs(testing::kLoopback, testing::kLoopbackPlan);
  EXPECT_TRUE(engine_connections(in->input(), "mlx-lm").empty());
}

}  // namespace
}  // namespace meshplan::engine_connections_test
