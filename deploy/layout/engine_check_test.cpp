// An engine's launch over Linux hosts checked as `emit` lays it out: the data network, each
// node's interface, address and HCAs, and the problems that hang NCCL or vLLM at start-up.
#include "deploy/layout/engine_check.hpp"

#include <gtest/gtest.h>

#include "deploy/layout/launch_layout.hpp"
#include "deploy/layout/plan_match.hpp"
#include "lib/cluster/cluster_loader.hpp"
#include "tests/launch_inputs.hpp"

namespace meshplan::engine_check_test {
namespace {

struct Checked {
  Cluster cluster;
  std::unique_ptr<TopologyContext> topology;
  CheckReport report;
  EngineVerdict verdict;
};

std::unique_ptr<Checked> check(const std::string& yaml, std::string_view engine = "vllm") {
  auto c = std::make_unique<Checked>();
  c->cluster = load_cluster(yaml, "cluster.yaml", Catalog::builtin());
  c->topology = std::make_unique<TopologyContext>(c->cluster, Catalog::builtin());
  c->report = check_cluster(*c->topology, check_options_for("auto", std::nullopt));
  c->verdict = check_engine_launch(*c->topology, c->report, std::nullopt, *find_engine(engine));
  return c;
}

std::vector<std::string> codes(const EngineVerdict& v) {
  std::vector<std::string> out;
  for (const CheckIssue& i : v.issues)
    out.push_back(i.code);
  return out;
}

const char* kTwoNodes = R"(
hosts:
  - name: a
    os: {kind: linux}
    gpus: [{name: gpu0, chip: h100-sxm}, {name: gpu1, chip: h100-sxm}]
    interfaces:
      - {name: eno1, kind: ethernet, ipv4: 10.0.0.1, prefix: 24}
      - {name: ib0, kind: other, ipv4: 10.9.0.1, prefix: 24, rdma_device: mlx5_0}
  - name: b
    os: {kind: linux}
    gpus: [{name: gpu0, chip: h100-sxm}, {name: gpu1, chip: h100-sxm}]
    interfaces:
      - {name: eno1, kind: ethernet, ipv4: 10.0.0.2, prefix: 24}
      - {name: ib0, kind: other, ipv4: 10.9.0.2, prefix: 24, rdma_device: mlx5_0}
links:
  - {topology: switch, kind: 1gbe, hosts: all, subnet: 10.0.0.0/24}
  - {topology: switch, kind: ib-ndr, hosts: all, subnet: 10.9.0.0/24}
)";

TEST(engine_check_test, names_the_network_interface_and_hca_nccl_will_use) {
  auto c = check(kTwoNodes);
  const EngineVerdict& v = c->verdict;
  EXPECT_EQ(v.engine, "vllm");
  EXPECT_EQ(v.network, "the ib-ndr network 10.9.0.0/24");
  EXPECT_EQ(v.transport, "ib");
  ASSERT_EQ(v.hosts.size(), 2u);
  EXPECT_EQ(v.hosts[0].interface, "ib0");
  EXPECT_EQ(v.hosts[0].address, "10.9.0.1");
  EXPECT_EQ(v.hosts[0].hcas, std::vector<std::string>{"mlx5_0"});
  EXPECT_EQ(v.hosts[1].address, "10.9.0.2");
  EXPECT_EQ(v.hosts[0].gpus, 2);
  EXPECT_EQ(v.hosts[0].gpu_part, "h100-sxm");
  EXPECT_EQ(codes(v), std::vector<std::string>{});
  EXPECT_FALSE(v.has_errors());
}

// The same interface and HCA the emitted NCCL variables name.
TEST(engine_check_test, agrees_with_the_launch_layout_emit_writes_from) {
  auto in = testing::launch_inputs("tests/fixtures/launch/two_hgx_rails.yaml",
                                   "tests/fixtures/launch/two_hgx_pipeline_plan.json");
  EngineVerdict v = check_engine_launch(*in->topology, in->report, in->plan, *find_engine("vllm"));
  const EmitInput input = in->input();
  const LaunchLayout& layout = input.layout();
  ASSERT_EQ(v.hosts.size(), layout.nodes.size());
  for (size_t i = 0; i < v.hosts.size(); ++i) {
    EXPECT_EQ(v.hosts[i].host, layout.nodes[i].host->name);
    EXPECT_EQ(v.hosts[i].interface, layout.nodes[i].data_interface);
    EXPECT_EQ(v.hosts[i].hcas, layout.nodes[i].rdma_devices);
  }
  EXPECT_EQ(v.transport, "ib");
}

TEST(engine_check_test, a_node_without_its_hca_on_infiniband_is_an_error) {
  std::string yaml = kTwoNodes;
  yaml.replace(yaml.rfind(", rdma_device: mlx5_0"), 21, "");
  auto c = check(yaml);
  EXPECT_EQ(c->verdict.transport, "socket");
  EXPECT_EQ(codes(c->verdict), std::vector<std::string>{"engine-no-hca"});
  EXPECT_EQ(c->verdict.issues[0].hosts, std::vector<std::string>{"b"});
  EXPECT_TRUE(c->verdict.has_errors());
}

TEST(engine_check_test, unequal_nodes_are_named_for_vllms_multiprocessing_launch) {
  std::string yaml = kTwoNodes;
  yaml.replace(yaml.rfind("gpus: [{name: gpu0, chip: h100-sxm}, {name: gpu1, chip: h100-sxm}]"), 66,
               "gpus: [{name: gpu0, chip: a100-80gb}]");
  auto c = check(yaml);
  EXPECT_EQ(codes(c->verdict),
            (std::vector<std::string>{"engine-unequal-gpus", "engine-mixed-gpus"}));
  EXPECT_FALSE(c->verdict.has_errors());  // warnings: Ray places unequal nodes
  EXPECT_NE(c->verdict.issues[0].fix.find("ray-cluster"), std::string::npos);
  // llama.cpp RPC places layers itself: no such rule.
  EXPECT_TRUE(check(yaml, "llama-rpc")->verdict.issues.empty());
}

TEST(engine_check_test, addresses_in_two_subnets_are_an_error) {
  std::string yaml = kTwoNodes;
  yaml.replace(yaml.find("ipv4: 10.9.0.2, prefix: 24"), 26, "ipv4: 10.9.0.2, prefix: 30");
  auto c = check(yaml);
  EXPECT_EQ(codes(c->verdict), std::vector<std::string>{"engine-subnets-differ"});
}

TEST(engine_check_test, two_mtus_on_the_data_network_are_an_error) {
  std::string yaml = kTwoNodes;
  yaml.replace(yaml.find("rdma_device: mlx5_0}"), 20, "rdma_device: mlx5_0, mtu: 4092}");
  yaml.replace(yaml.rfind("rdma_device: mlx5_0}"), 20, "rdma_device: mlx5_0, mtu: 2044}");
  auto c = check(yaml);
  EXPECT_EQ(codes(c->verdict), std::vector<std::string>{"engine-mtu-differs"});
  EXPECT_NE(c->verdict.issues[0].message.find("a ib0 4092, b ib0 2044"), std::string::npos)
      << c->verdict.issues[0].message;
  EXPECT_NE(c->verdict.issues[0].fix.find("mtu 4092"), std::string::npos);
}

TEST(engine_check_test, no_shared_network_is_named_with_its_fix) {
  auto c = check(R"(
hosts:
  - {name: a, os: {kind: linux}, gpus: [{name: gpu0, chip: h100-sxm}]}
  - {name: b, os: {kind: linux}, gpus: [{name: gpu0, chip: h100-sxm}]}
)");
  EXPECT_EQ(codes(c->verdict), std::vector<std::string>{"engine-no-network"});
  EXPECT_NE(c->verdict.issues[0].fix.find("networks:"), std::string::npos);
}

// Two DGX Sparks on a 200GbE cable whose ports have no address yet: the launch's HCA is the
// cable's RoCE device, which needs the address `setup` gives it.
TEST(engine_check_test, a_roce_device_without_an_address_is_named_with_setup) {
  auto c = check(testing::read_text(
                     testing::source_path("tests/fixtures/clusters/spark-pair-direct-cable.yaml")),
                 "vllm");
  std::vector<std::string> got = codes(c->verdict);
  ASSERT_EQ(got, (std::vector<std::string>{"engine-roce-no-address", "engine-roce-no-address"}));
  EXPECT_EQ(c->verdict.issues[0].hosts, std::vector<std::string>{"spark-1"});
  EXPECT_NE(c->verdict.issues[0].message.find("rocep1s0f0 is on enp1s0f0np0"), std::string::npos);
  EXPECT_NE(c->verdict.issues[0].fix.find("meshplan setup"), std::string::npos);
  EXPECT_TRUE(c->verdict.has_errors());
}

TEST(engine_check_test, the_engine_to_check_is_none_with_a_mac) {
  Cluster macs = load_cluster(testing::read_text(testing::source_path(testing::kStudios)),
                              "studios.yaml", Catalog::builtin());
  EXPECT_EQ(engine_to_check(macs, Catalog::builtin(), {}, std::nullopt), nullptr);
  Cluster gpus = load_cluster(kTwoNodes, "gpus.yaml", Catalog::builtin());
  const Engine* e = engine_to_check(gpus, Catalog::builtin(), {}, std::nullopt);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->name, "vllm");
}

}  // namespace
}  // namespace meshplan::engine_check_test
