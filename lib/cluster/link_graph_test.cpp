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

// calibrate's round trip is what an RPC call costs on the cable, and half of it its TCP latency
// where the file measured none; a measured latency stays.
TEST(link_graph_test, a_measured_round_trip_prices_calls_and_stands_for_the_latency) {
  Cluster c = load(
      "  - {a: a, b: b, kind: 10gbe, round_trip_us: 40, measured: 2026-11-27}\n"
      "  - {a: a, b: b, kind: 25gbe, latency_us: 12, round_trip_us: 40}\n"
      "  - {a: a, b: b, kind: 1gbe}\n");
  LinkGraph g(c, Catalog::builtin());
  std::vector<LinkFigures> links = g.links(0, 1);
  ASSERT_EQ(links.size(), 3u);
  EXPECT_DOUBLE_EQ(links[0].latency_s, 20e-6);
  EXPECT_DOUBLE_EQ(links[0].tcp_latency_s, 20e-6);
  EXPECT_DOUBLE_EQ(links[0].call_round_trip_s(), 40e-6);
  EXPECT_DOUBLE_EQ(links[1].latency_s, 12e-6);
  EXPECT_DOUBLE_EQ(links[1].call_round_trip_s(), 40e-6);
  // Not measured: twice the kind's TCP latency (1 GbE: 250 us).
  EXPECT_DOUBLE_EQ(links[2].call_round_trip_s(), 500e-6);
}

}  // namespace
}  // namespace meshplan::link_graph_test
