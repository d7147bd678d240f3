// MLX's ordering rules, reproduced from semantic fields only: ports sorted by interface name as
// strings, the first cable of a pair, the /30 order; the order of cables in the file, and which
// end a file calls a, change nothing.
#include "topologies/tb_fabric.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>

#include "lib/cluster/cluster_loader.hpp"
#include "tests/test_support.hpp"
#include "topologies/backend_rules.hpp"
#include "topologies/mlx_hostfile.hpp"
#include "topologies/mlx_hostfile_builder.hpp"
#include "topologies/mlx_hostfile_writer.hpp"
#include "topologies/setup_commands.hpp"

namespace meshplan::tb_fabric_test {
namespace {

Cluster load_fixture(const std::string& name) {
  return load_cluster_file(testing::fixture_path("clusters/" + name), RealFileSystem(),
                           Catalog::builtin());
}

std::string hostfile(const Cluster& c, const std::string& backend) {
  TopologyContext ctx(c, Catalog::builtin());
  CheckOptions o;
  o.backend = backend;
  CheckReport r = check_cluster(ctx, o);
  return write_mlx_hostfile(build_mlx_hostfile(ctx, require_valid(r), {}));
}

std::string setup(const Cluster& c) {
  TopologyContext ctx(c, Catalog::builtin());
  return render_setup(host_setups(ctx.fabric, ctx.subnets));
}

TEST(tb_fabric_test, cable_order_and_orientation_in_the_file_do_not_matter) {
  Cluster base = load_fixture("mlx_four_hosts_full_mesh.json");
  std::map<std::string, std::string> expected;
  for (const char* b : {"jaccl", "jaccl-ring", "ring"})
    expected[b] = hostfile(base, b);
  std::string expected_setup = setup(base);
  std::mt19937 rng(3);
  for (int trial = 0; trial < 10; ++trial) {
    Cluster c = base;
    std::shuffle(c.cables.begin(), c.cables.end(), rng);
    for (auto& cable : c.cables)
      if (rng() % 2) std::swap(cable.a, cable.b);
    for (auto& h : c.hosts)
      std::shuffle(h.ports.begin(), h.ports.end(), rng);
    for (const char* b : {"jaccl", "jaccl-ring", "ring"})
      EXPECT_EQ(hostfile(c, b), expected[b]) << b;
    EXPECT_EQ(setup(c), expected_setup);
  }
}

TEST(tb_fabric_test, ports_sort_by_interface_name_as_strings) {
  // Thunderbolt 1 is en10 and Thunderbolt 2 is en2: MLX sorts "en10" before "en2", so the cable on
  // en10 is the first cable between the two hosts and gets the first /30.
  Cluster c = load_cluster(R"(hosts:
  - name: a
    rdma_enabled: true
    interfaces: [{name: en0, kind: ethernet, ipv4: 10.0.0.1}]
    ports: [{id: "1", generation: 5, interface: en2}, {id: "2", generation: 5, interface: en10}]
  - name: b
    rdma_enabled: true
    interfaces: [{name: en0, kind: ethernet, ipv4: 10.0.0.2}]
    ports: [{id: "1", generation: 5, interface: en2}, {id: "2", generation: 5, interface: en3}]
links:
  - {a: a:1, b: b:1, kind: tb5, rdma: true}
  - {a: a:2, b: b:2, kind: tb5, rdma: true}
)",
                           "c.yaml", Catalog::builtin());
  LinkGraph graph(c, Catalog::builtin());
  TbFabric fabric(c, graph);
  ASSERT_EQ(fabric.ports(0).size(), 2u);
  EXPECT_EQ(fabric.ports(0)[0].interface, "en10");
  auto cables = fabric.between(0, 1);
  ASSERT_EQ(cables.size(), 2u);
  EXPECT_EQ(cables[0]->lo.interface, "en10");
  EXPECT_EQ(cables[0]->hi.interface, "en3");
  EXPECT_NE(hostfile(c, "jaccl").find("\"rdma_en10\""), std::string::npos);
  const std::string expected =
      "Setup for a\n===========\nsudo ifconfig bridge0 down\nsudo ifconfig en10 inet 192.168.0.1 "
      "netmask "
      "255.255.255.252\nsudo route change 192.168.0.2 -interface en10\n";
  EXPECT_EQ(setup(c).rfind(expected, 0), 0u) << setup(c);
}

TEST(tb_fabric_test, free_and_busy_ports) {
  Cluster c = load_cluster(R"(hosts:
  - name: a
    ports: [{id: "1", interface: en2}, {id: "2", interface: en3, speed_gbps: 40}, {id: "3", interface: en4}]
  - name: b
    ports: [{id: "1", interface: en2}, {id: "2", interface: en3}]
links:
  - {a: a:1, b: b:2, kind: tb4, speed_gbps: 40}
findings:
  - {kind: unknown-peer, host: b, port: "1", peer: "Mac16,9"}
)",
                           "c.yaml", Catalog::builtin());
  LinkGraph graph(c, Catalog::builtin());
  TbFabric fabric(c, graph);
  auto free_a = fabric.free_ports(0);
  ASSERT_EQ(free_a.size(), 1u);  // port 2 has something at 40 Gb/s that is not a listed host
  EXPECT_EQ(free_a[0]->id, "3");
  EXPECT_TRUE(fabric.free_ports(1).empty());  // port 1 holds a Mac that is not in the cluster
  ASSERT_EQ(fabric.cables().size(), 1u);
  EXPECT_FALSE(fabric.cables()[0].rdma);
  EXPECT_NE(fabric.cables()[0].no_rdma_reason.find("Thunderbolt 4 (40 Gb/s)"), std::string::npos);
}

}  // namespace
}  // namespace meshplan::tb_fabric_test
