#include "lib/configure/live_check.hpp"

#include <gtest/gtest.h>

#include "tests/test_support.hpp"
#include "topologies/backend_rules.hpp"
#include "topologies/cluster_loader.hpp"

namespace meshplan {
namespace {

TEST(live_check_test, round_trips_come_from_linux_and_macos_ping_lines) {
  EXPECT_EQ(ping_round_trips_us("PING 192.168.0.2 (192.168.0.2) 56(84) bytes of data.\n"
                                "64 bytes from 192.168.0.2: icmp_seq=1 ttl=64 time=0.045 ms\n"
                                "64 bytes from 192.168.0.2: icmp_seq=2 ttl=64 time=1.5 ms\n"
                                "rtt min/avg/max/mdev = 0.045/0.772/1.500/0.727 ms\n"),
            (std::vector<double>{45, 1500}));
  EXPECT_EQ(ping_round_trips_us("64 bytes from 192.168.0.2: icmp_seq=0 ttl=64 time=0.361 ms\n"),
            (std::vector<double>{361}));
  EXPECT_EQ(ping_round_trips_us("64 bytes from 10.0.0.2: icmp_seq=0 ttl=64 time<1 ms\n"),
            (std::vector<double>{1000}));
  EXPECT_TRUE(ping_round_trips_us("From 192.168.0.1 icmp_seq=1 Destination Host Unreachable\n"
                                  "2 packets transmitted, 0 received, 100% packet loss\n")
                  .empty());
}

TEST(live_check_test, bandwidth_is_what_the_iperf3_client_says_was_received) {
  EXPECT_EQ(iperf_received_gbps(R"({"start":{},"end":{"sum_sent":{"bits_per_second":9.9e9},)"
                                R"("sum_received":{"bits_per_second":9.5e9}}})"),
            9.5);
  EXPECT_EQ(iperf_received_gbps(R"({"error":"unable to connect to server"})"), std::nullopt);
  EXPECT_EQ(iperf_received_gbps(R"({"end":{"sum_received":{"bits_per_second":-1}}})"),
            std::nullopt);
  EXPECT_EQ(iperf_received_gbps("not json"), std::nullopt);
}

TEST(live_check_test, a_direct_cable_without_addresses_is_checked_on_its_planned_30s) {
  Cluster c = load_cluster_file(testing::fixture_path("clusters/spark-pair-direct-cable.yaml"),
                                RealFileSystem(), Catalog::builtin());
  TopologyContext topo(c, Catalog::builtin());
  auto links = live_links(c, topo.fabric, topo.subnets, /*rdma=*/false);
  ASSERT_EQ(links.size(), 2u);
  EXPECT_EQ(links[0].name(), "spark-1:enp1s0f0np0 - spark-2:enp1s0f0np0");
  EXPECT_EQ(links[0].address, "192.168.0.1");
  EXPECT_EQ(links[0].peer_address, "192.168.0.2");
  EXPECT_EQ(links[1].host, "spark-2");
  EXPECT_EQ(links[1].peer_address, "192.168.0.1");
}

TEST(live_check_test, thunderbolt_ends_carry_their_rdma_device_when_the_backend_uses_rdma) {
  Cluster c =
      load_cluster_file(testing::source_path("examples/clusters/mac-studio-m3-ultra-x4.yaml"),
                        RealFileSystem(), Catalog::builtin());
  TopologyContext topo(c, Catalog::builtin());
  auto rdma = live_links(c, topo.fabric, topo.subnets, true);
  ASSERT_EQ(rdma.size(), 12u);  // 6 cables of a 4-host mesh, both ends
  for (const auto& l : rdma) {
    EXPECT_EQ(l.rdma_device, "rdma_" + l.interface) << l.name();
    EXPECT_EQ(l.address.rfind("192.168.", 0), 0u) << l.name();
  }
  EXPECT_EQ(live_links(c, topo.fabric, topo.subnets, false)[0].rdma_device, "");
}

TEST(live_check_test, the_script_quotes_addresses_and_pings_each_peer) {
  LiveLink l{0, "a", "en2", "192.168.0.1", "b", "en2", "192.168.0.2;reboot", ""};
  std::string s = live_script({&l}, 3);
  EXPECT_NE(s.find("ping -n -c 3 -i 0.2 -W 1 '192.168.0.2;reboot'"), std::string::npos) << s;
  EXPECT_NE(s.find("echo @@ping_0\n"), std::string::npos);
  EXPECT_EQ(s.substr(s.size() - 11), "echo @@end\n");
}

}  // namespace
}  // namespace meshplan
