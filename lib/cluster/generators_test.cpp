#include "lib/cluster/generators.hpp"

#include <gtest/gtest.h>

#include <map>

#include "lib/cluster/cluster_loader.hpp"
#include "lib/core/error.hpp"

namespace meshplan::generators_test {
namespace {

Cluster load(const std::string& text) {
  return load_cluster(text, "g.yaml", Catalog::builtin());
}

std::string load_error(const std::string& text) {
  try {
    load(text);
  } catch (const Error& e) {
    EXPECT_EQ(exit_code(e.kind()), 2);
    return e.what();
  }
  return "no error";
}

std::string minis(int n) {
  std::string s = "hosts:\n";
  for (int i = 1; i <= n; ++i)
    s += "  - {name: mini-" + std::to_string(i) + ", chip: m4-pro-20c, memory: 64GiB}\n";
  return s;
}

TEST(generators_test, full_mesh_uses_distinct_real_ports) {
  Cluster c =
      load(minis(4) + "links:\n  - {topology: full-mesh, kind: tb5, rdma: true, hosts: all}\n");
  ASSERT_EQ(c.cables.size(), 6u);
  std::map<std::string, std::set<std::string>> used;
  for (const auto& cable : c.cables) {
    EXPECT_TRUE(cable.rdma);
    EXPECT_EQ(cable.kind, LinkKind::kTb5);
    EXPECT_DOUBLE_EQ(cable.speed_gbps, 80);
    EXPECT_TRUE(used[cable.a.host].insert(cable.a.port).second);
    EXPECT_TRUE(used[cable.b.host].insert(cable.b.port).second);
  }
  // Each mini uses its three receptacles, "1".."3".
  for (const auto& [host, ports] : used)
    EXPECT_EQ(ports, (std::set<std::string>{"1", "2", "3"})) << host;
  for (const auto& h : c.hosts)
    EXPECT_EQ(h.rdma_enabled, std::optional<bool>(true));
}

TEST(generators_test, full_mesh_beyond_the_port_budget_names_host_and_budget) {
  std::string msg =
      load_error(minis(5) + "links:\n  - {topology: full-mesh, kind: tb5, hosts: all}\n");
  EXPECT_NE(msg.find("a full mesh of 5 needs 4 Thunderbolt ports per host"), std::string::npos)
      << msg;
  EXPECT_NE(msg.find("(Mac mini (M4 Pro, 2024)) has 3 Thunderbolt ports"), std::string::npos)
      << msg;
  EXPECT_NE(msg.find("g.yaml:"), std::string::npos) << msg;
}

TEST(generators_test, ring_chain_star_shapes) {
  EXPECT_EQ(generator_pairs("ring", 4, 0),
            (std::vector<std::pair<size_t, size_t>>{{0, 1}, {1, 2}, {2, 3}, {3, 0}}));
  EXPECT_EQ(generator_pairs("chain", 3, 0),
            (std::vector<std::pair<size_t, size_t>>{{0, 1}, {1, 2}}));
  EXPECT_EQ(generator_pairs("ring", 2, 0), (std::vector<std::pair<size_t, size_t>>{{0, 1}}));
  EXPECT_EQ(generator_pairs("star", 3, 1),
            (std::vector<std::pair<size_t, size_t>>{{1, 0}, {1, 2}}));
  EXPECT_EQ(generator_pairs("full-mesh", 3, 0).size(), 3u);
}

TEST(generators_test, star_with_center_and_switch_network) {
  Cluster c =
      load(minis(3) +
           "links:\n  - {topology: star, kind: tb4, center: mini-2, hosts: all}\n"
           "  - {topology: switch, kind: 10gbe, hosts: [mini-1, mini-3], subnet: 10.1.0.0/24}\n");
  ASSERT_EQ(c.cables.size(), 2u);
  for (const auto& cable : c.cables)
    EXPECT_EQ(cable.a.host, "mini-2");
  ASSERT_EQ(c.networks.size(), 1u);
  EXPECT_EQ(c.networks[0].hosts, (std::vector<std::string>{"mini-1", "mini-3"}));
  EXPECT_EQ(c.networks[0].subnet, "10.1.0.0/24");
}

TEST(generators_test, tb5_on_thunderbolt4_machines_is_refused) {
  std::string msg = load_error(
      "hosts:\n  - {name: s1, chip: m2-ultra-76c}\n  - {name: s2, chip: m2-ultra-76c}\n"
      "links:\n  - {topology: chain, kind: tb5, hosts: all}\n");
  EXPECT_NE(msg.find("kind tb5 needs Thunderbolt 5 ports"), std::string::npos) << msg;
  EXPECT_NE(msg.find("use kind tb4"), std::string::npos) << msg;
}

TEST(generators_test, explicit_cables_keep_their_ports_and_generators_avoid_them) {
  Cluster c = load(minis(3) +
                   "links:\n  - {a: mini-1:1, b: mini-2:3, kind: tb5}\n"
                   "  - {topology: chain, kind: tb5, hosts: [mini-2, mini-3]}\n"
                   "  - {a: mini-1, b: mini-3, kind: tb5}\n");
  ASSERT_EQ(c.cables.size(), 3u);
  EXPECT_EQ(c.cables[0].b.port, "3");
  // File order is kept: the chain's cable sits between the two explicit ones.
  EXPECT_EQ(c.cables[1].a.host, "mini-2");
  EXPECT_EQ(c.cables[1].a.port, "1");  // mini-2's lowest free port
  EXPECT_EQ(c.cables[2].a.host, "mini-1");
  EXPECT_EQ(c.cables[2].a.port, "2");  // mini-1's port 1 is taken
}

std::string linux_nodes(int n) {
  std::string s = "hosts:\n";
  for (int i = 1; i <= n; ++i)
    s += "  - {name: node-" + std::to_string(i) + ", os: linux}\n";
  return s;
}

TEST(generators_test, a_roce_switch_is_an_rdma_network) {
  Cluster c = load(linux_nodes(3) +
                   "links:\n  - {topology: switch, kind: 100gbe, rdma: true, hosts: all}\n"
                   "  - {topology: switch, kind: ib-ndr, hosts: [node-1, node-2]}\n"
                   "  - {topology: switch, kind: 10gbe, hosts: all}\n");
  ASSERT_EQ(c.networks.size(), 3u);
  EXPECT_TRUE(c.networks[0].all_hosts);
  EXPECT_TRUE(c.networks[0].rdma);
  EXPECT_TRUE(c.networks[1].rdma) << "InfiniBand is RDMA unless it says otherwise";
  EXPECT_FALSE(c.networks[2].rdma);
}

TEST(generators_test, roce_and_infiniband_cables_from_generators) {
  Cluster c = load(linux_nodes(3) +
                   "links:\n  - {topology: full-mesh, kind: 25gbe, rdma: true, hosts: all}\n"
                   "  - {topology: chain, kind: ib-hdr, hosts: [node-1, node-2]}\n");
  ASSERT_EQ(c.cables.size(), 4u);
  for (const auto& cable : c.cables) {
    EXPECT_TRUE(cable.rdma);
    EXPECT_TRUE(cable.a.port.empty());
  }
  EXPECT_EQ(c.cables[3].kind, LinkKind::kIbHdr);
  // rdma_enabled is the Mac's switch for RDMA over Thunderbolt; Linux hosts keep theirs unset.
  for (const auto& h : c.hosts)
    EXPECT_FALSE(h.rdma_enabled.has_value()) << h.name;
}

TEST(generators_test, rdma_on_kinds_without_rdma_nics_is_refused) {
  std::string msg = load_error(
      linux_nodes(2) + "links:\n  - {topology: switch, kind: 1gbe, rdma: true, hosts: all}\n");
  EXPECT_NE(msg.find("g.yaml:5:"), std::string::npos) << msg;
  EXPECT_NE(msg.find("rdma needs one of the kinds tb5, ib-ndr, ib-hdr, 400gbe, 200gbe, 100gbe, "
                     "25gbe, 10gbe; got 1gbe, which has no RDMA NICs"),
            std::string::npos)
      << msg;
  msg = load_error(minis(2) + "links:\n  - {topology: ring, kind: tb4, rdma: true, hosts: all}\n");
  EXPECT_NE(msg.find("g.yaml:5:"), std::string::npos) << msg;
  EXPECT_NE(msg.find("rdma needs kind tb5 (RDMA over Thunderbolt needs Thunderbolt 5)"),
            std::string::npos)
      << msg;
}

TEST(generators_test, switch_cannot_be_thunderbolt) {
  EXPECT_NE(load_error(minis(2) + "links:\n  - {topology: switch, kind: tb5, hosts: all}\n")
                .find("network kind"),
            std::string::npos);
}

}  // namespace
}  // namespace meshplan::generators_test
