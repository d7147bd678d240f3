#include "lib/cluster/link_graph.hpp"

#include <gtest/gtest.h>

#include "lib/cluster/cluster_loader.hpp"

namespace meshplan::link_graph_test {
namespace {

constexpr double kMessageBytes = 32768;

Cluster load(const std::string& links) {
  return load_cluster(
      "hosts:\n  - {name: a, os: linux}\n  - {name: b, os: linux}\nlinks:\n" + links, "l.yaml",
      Catalog::builtin());
}

// RoCE and InfiniBand are the fabric's RDMA (NCCL's), kept apart from RDMA over Thunderbolt 5:
// they do not join the JACCL transport, and TCP may still use them.
TEST(link_graph_test, roce_and_infiniband_networks_are_fabric_rdma) {
  Cluster c = load(
      "  - {topology: switch, kind: 100gbe, rdma: true, hosts: all}\n"
      "  - {kind: ib-ndr, hosts: all}\n"
      "  - {kind: 10gbe, hosts: all}\n");
  LinkGraph g(c, Catalog::builtin());
  std::vector<LinkFigures> links = g.links(0, 1);
  ASSERT_EQ(links.size(), 3u);
  // The switch's network comes after those written as networks.
  EXPECT_EQ(links[0].name, "ib-ndr");
  EXPECT_TRUE(links[0].fabric_rdma);
  EXPECT_EQ(links[1].name, "10gbe");
  EXPECT_FALSE(links[1].fabric_rdma);
  EXPECT_EQ(links[2].name, "100gbe");
  EXPECT_TRUE(links[2].fabric_rdma);
  for (const LinkFigures& l : links)
    EXPECT_FALSE(l.rdma) << l.name;
  EXPECT_FALSE(g.best(0, 1, Transport::kRdma, kMessageBytes));
  auto tcp = g.best(0, 1, Transport::kTcp, kMessageBytes);
  ASSERT_TRUE(tcp);
  EXPECT_EQ(tcp->name, "ib-ndr");
}

TEST(link_graph_test, a_roce_cable_is_fabric_rdma) {
  Cluster c = load("  - {a: a, b: b, kind: 200gbe, rdma: true}\n  - {a: a, b: b, kind: 25gbe}\n");
  LinkGraph g(c, Catalog::builtin());
  std::vector<LinkFigures> links = g.links(0, 1);
  ASSERT_EQ(links.size(), 2u);
  EXPECT_TRUE(links[0].fabric_rdma);
  EXPECT_FALSE(links[0].rdma);
  EXPECT_FALSE(links[1].fabric_rdma);
}

}  // namespace
}  // namespace meshplan::link_graph_test
