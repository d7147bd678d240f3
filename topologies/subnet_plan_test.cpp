// The /30 plan: MLX's addresses when nothing collides, the next free range (with the reason)
// when a host or network already uses part of 192.168.0.0/16; setup and teardown use it.
#include "topologies/subnet_plan.hpp"

#include <gtest/gtest.h>

#include "lib/cluster/cluster_loader.hpp"
#include "lib/core/error.hpp"
#include "topologies/setup_commands.hpp"

namespace meshplan::subnet_plan_test {
namespace {

struct Planned {
  Cluster cluster;
  std::unique_ptr<LinkGraph> graph;
  std::unique_ptr<TbFabric> fabric;
  SubnetPlan plan;
};

std::unique_ptr<Planned> plan_for(const std::string& yaml) {
  auto p = std::make_unique<Planned>();
  p->cluster = load_cluster(yaml, "c.yaml", Catalog::builtin());
  p->graph = std::make_unique<LinkGraph>(p->cluster, Catalog::builtin());
  p->fabric = std::make_unique<TbFabric>(p->cluster, *p->graph);
  p->plan = plan_subnets(*p->fabric);
  return p;
}

const std::string kMesh3 = R"(
links:
  - {topology: full-mesh, kind: tb5, rdma: true, hosts: all}
)";

std::string studios(const std::string& extra_a = "") {
  return "hosts:\n  - {name: s1, chip: m3-ultra-80c, memory: 512GiB" + extra_a +
         "}\n  - {name: s2, chip: m3-ultra-80c, memory: 512GiB}\n  - {name: s3, chip: "
         "m3-ultra-80c, memory: 512GiB}\n";
}

TEST(subnet_plan_test, mlx_order_when_nothing_collides) {
  auto p = plan_for(studios() + kMesh3);
  ASSERT_EQ(p->plan.cables.size(), 3u);
  EXPECT_EQ(p->plan.cables[0].subnet, "192.168.0.0/30");
  EXPECT_EQ(p->plan.cables[0].lo_address, "192.168.0.1");
  EXPECT_EQ(p->plan.cables[0].hi_address, "192.168.0.2");
  EXPECT_EQ(p->plan.cables[1].lo_address, "192.168.0.5");
  EXPECT_EQ(p->plan.cables[2].subnet, "192.168.0.8/30");
  EXPECT_TRUE(p->plan.notes.empty());
}

TEST(subnet_plan_test, skips_a_lan_on_the_same_range_and_says_why) {
  auto p = plan_for(
      studios(", interfaces: [{name: en0, kind: ethernet, ipv4: 192.168.0.20, prefix: 24}]") +
      kMesh3);
  EXPECT_EQ(p->plan.cables[0].subnet, "192.168.1.0/30");
  EXPECT_EQ(p->plan.cables[0].lo_address, "192.168.1.1");
  EXPECT_EQ(p->plan.cables[2].lo_address, "192.168.1.9");
  ASSERT_EQ(p->plan.notes.size(), 2u);
  EXPECT_EQ(p->plan.notes[0],
            "skipped 192.168.0.0-192.168.0.255: it is in use by en0 on s1 (192.168.0.20/24)");
  // An address without a prefix is taken as a /24, and networks count too.
  auto q = plan_for(studios(", interfaces: [{name: en0, kind: ethernet, ipv4: 192.168.0.7}]") +
                    kMesh3 + "  - {kind: 10gbe, hosts: all, subnet: 192.168.1.0/24}\n");
  EXPECT_EQ(q->plan.cables[0].subnet, "192.168.2.0/30");
  ASSERT_EQ(q->plan.notes.size(), 3u);
  EXPECT_NE(q->plan.notes[0].find("prefix unknown, taken as /24"), std::string::npos);
  EXPECT_NE(q->plan.notes[1].find("the 10gbe network 192.168.1.0/24"), std::string::npos);
}

TEST(subnet_plan_test, thunderbolt_addresses_from_an_earlier_setup_do_not_collide) {
  // The plan must stay put when run again after setup configured the same addresses.
  auto p = plan_for(
      studios(", interfaces: [{name: en2, kind: thunderbolt, ipv4: 192.168.0.1, prefix: 30}]") +
      kMesh3);
  EXPECT_EQ(p->plan.cables[0].lo_address, "192.168.0.1");
  EXPECT_TRUE(p->plan.notes.empty());
}

TEST(subnet_plan_test, setup_and_teardown_commands) {
  auto p = plan_for(studios() + kMesh3);
  std::vector<HostSetup> hosts = host_setups(*p->fabric, p->plan);
  ASSERT_EQ(hosts.size(), 3u);
  EXPECT_EQ(setup_commands(hosts[2]),
            (std::vector<std::string>{"sudo ifconfig bridge0 down",
                                      "sudo ifconfig en2 inet 192.168.0.6 netmask 255.255.255.252",
                                      "sudo route change 192.168.0.5 -interface en2",
                                      "sudo ifconfig en3 inet 192.168.0.10 netmask 255.255.255.252",
                                      "sudo route change 192.168.0.9 -interface en3"}));
  EXPECT_EQ(teardown_commands(hosts[2]),
            (std::vector<std::string>{"sudo route delete 192.168.0.9 -interface en3",
                                      "sudo ifconfig en3 inet 192.168.0.10 delete",
                                      "sudo route delete 192.168.0.5 -interface en2",
                                      "sudo ifconfig en2 inet 192.168.0.6 delete",
                                      "sudo ifconfig bridge0 up"}));
  hosts[2].restore_bridge = false;  // it was down before: leave it down
  EXPECT_EQ(teardown_commands(hosts[2]).back(), "sudo ifconfig en2 inet 192.168.0.6 delete");
}

TEST(subnet_plan_test, direct_cables_without_addresses_come_after_the_thunderbolt_cables) {
  // s1-s2 over Thunderbolt; s2-s3 over a direct 10 GbE cable; s1-s3 over a cable already addressed.
  auto p = plan_for(R"(hosts:
  - {name: s1, chip: m3-ultra-80c, memory: 512GiB, interfaces: [{name: en8, kind: ethernet, ipv4: 192.168.0.5, prefix: 30}]}
  - {name: s2, chip: m3-ultra-80c, memory: 512GiB, interfaces: [{name: en9, kind: ethernet}]}
  - {name: s3, chip: m3-ultra-80c, memory: 512GiB, os: {kind: linux}, interfaces: [{name: eth1, kind: ethernet}, {name: eth2, kind: ethernet, ipv4: 192.168.0.6, prefix: 30}]}
links:
  - {a: s1, b: s2, kind: tb5}
  - {a: {host: s2, interface: en9}, b: {host: s3, interface: eth1}, kind: 10gbe}
  - {a: {host: s1, interface: en8}, b: {host: s3, interface: eth2}, kind: 10gbe}
)");
  ASSERT_EQ(p->plan.cables.size(), 1u);
  EXPECT_EQ(p->plan.cables[0].subnet, "192.168.0.0/30");
  ASSERT_EQ(p->plan.direct.size(), 1u) << "the addressed cable keeps its addresses";
  EXPECT_EQ(p->plan.direct[0].cable, 1u);
  EXPECT_EQ(p->plan.direct[0].subnet, "192.168.0.8/30") << "192.168.0.4/30 is in use";
  auto setups = host_setups(*p->fabric, p->plan);
  ASSERT_EQ(setups.size(), 3u);
  EXPECT_EQ(
      setup_commands(setups[1]),
      (std::vector<std::string>{"sudo ifconfig bridge0 down",
                                "sudo ifconfig en2 inet 192.168.0.2 netmask 255.255.255.252",
                                "sudo route change 192.168.0.1 -interface en2",
                                "sudo ifconfig en9 inet 192.168.0.9 netmask 255.255.255.252"}));
  EXPECT_EQ(setup_commands(setups[2]),
            (std::vector<std::string>{"sudo ip link set dev eth1 up",
                                      "sudo ip addr replace 192.168.0.10/30 dev eth1"}));
  EXPECT_EQ(teardown_commands(setups[2]),
            (std::vector<std::string>{"sudo ip addr del 192.168.0.10/30 dev eth1"}));
}

TEST(subnet_plan_test, runs_out_when_the_whole_range_is_taken) {
  std::string yaml =
      studios(", interfaces: [{name: en0, kind: ethernet, ipv4: 192.168.0.1, prefix: 16}]") +
      kMesh3;
  Cluster c = load_cluster(yaml, "c.yaml", Catalog::builtin());
  LinkGraph graph(c, Catalog::builtin());
  TbFabric fabric(c, graph);
  try {
    plan_subnets(fabric);
    FAIL() << "a plan inside a used /16";
  } catch (const Error& e) {
    EXPECT_EQ(exit_code(e.kind()), 1);
    EXPECT_NE(std::string(e.what()).find("192.168.0.0/16 has free"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace meshplan::subnet_plan_test
