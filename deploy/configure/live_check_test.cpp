#include "deploy/configure/live_check.hpp"

#include <gtest/gtest.h>

#include "lib/cluster/cluster_loader.hpp"
#include "tests/fake_mac.hpp"
#include "tests/test_support.hpp"
#include "topologies/backend_rules.hpp"

namespace meshplan::live_check_test {
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
  auto links = live_links(c, topo.subnets, /*rdma=*/false);
  ASSERT_EQ(links.size(), 2u);
  EXPECT_EQ(links[0].name(), "spark-1:enp1s0f0np0 - spark-2:enp1s0f0np0");
  EXPECT_EQ(links[0].address, "192.168.0.1");
  EXPECT_EQ(links[0].peer_address, "192.168.0.2");
  EXPECT_EQ(links[1].host, "spark-2");
  EXPECT_EQ(links[1].peer_address, "192.168.0.1");
}

TEST(live_check_test, measured_figures_are_half_the_round_trip_and_iperf3s_bandwidth) {
  Cluster c = load_cluster_file(testing::fixture_path("clusters/spark-pair-direct-cable.yaml"),
                                RealFileSystem(), Catalog::builtin());
  TopologyContext topo(c, Catalog::builtin());
  auto links = live_links(c, topo.subnets, false);
  ASSERT_EQ(links.size(), 2u);
  LiveReport r;
  r.round_trip_us = {40.0, 60.0};
  r.bandwidth_gbps = {9.4, std::nullopt};
  Cluster m = with_measurements(c, links, r, "2026-11-25");
  const Cable& cable = m.cables[links[0].cable];
  ASSERT_TRUE(cable.latency_us);
  EXPECT_DOUBLE_EQ(*cable.latency_us, 25);  // the mean of 40 and 60 us, one way
  ASSERT_TRUE(cable.bandwidth_gbps);
  EXPECT_DOUBLE_EQ(*cable.bandwidth_gbps, 9.4);
  EXPECT_EQ(cable.measured, "2026-11-25");

  // A cable whose ends did not answer keeps what the file says.
  r.round_trip_us = {std::nullopt, std::nullopt};
  Cluster untouched = with_measurements(c, links, r, "2026-11-25");
  EXPECT_EQ(untouched.cables[links[0].cable].measured, "");
  EXPECT_EQ(untouched.cables[links[0].cable].latency_us, c.cables[links[0].cable].latency_us);
}

TEST(live_check_test, thunderbolt_ends_carry_their_rdma_device_when_the_backend_uses_rdma) {
  Cluster c =
      load_cluster_file(testing::source_path("examples/clusters/mac-studio-m3-ultra-x4.yaml"),
                        RealFileSystem(), Catalog::builtin());
  TopologyContext topo(c, Catalog::builtin());
  auto rdma = live_links(c, topo.subnets, true);
  ASSERT_EQ(rdma.size(), 12u);  // 6 cables of a 4-host mesh, both ends
  for (const auto& l : rdma) {
    EXPECT_EQ(l.rdma_device, "rdma_" + l.interface) << l.name();
    EXPECT_EQ(l.address.rfind("192.168.", 0), 0u) << l.name();
  }
  EXPECT_EQ(live_links(c, topo.subnets, false)[0].rdma_device, "");
}

TEST(live_check_test, the_script_quotes_addresses_and_pings_each_peer) {
  LiveLink l{0, "a", "en2", "192.168.0.1", "b", "en2", "192.168.0.2;reboot", ""};
  std::string s = live_script({&l}, 3);
  EXPECT_NE(s.find("ping -n -c 3 -i 0.2 -W 1 '192.168.0.2;reboot'"), std::string::npos) << s;
  EXPECT_NE(s.find("echo @@ping_0\n"), std::string::npos);
  EXPECT_EQ(s.substr(s.size() - 11), "echo @@end\n");
}

// Two fake Macs joined by one Thunderbolt 5 cable with RDMA (the whole check but SSH): their
// ifconfig keeps state in files; sw_vers, ibv_devinfo, python3 (MLX's version) and ping answer
// from what each test writes.
class MacLiveCheckTest : public ::testing::Test {
 protected:
  void SetUp() override {
    cluster_ = load_cluster_file(testing::fixture_path("clusters/mlx_two_hosts_one_cable.json"),
                                 RealFileSystem(), Catalog::builtin());
    TopologyContext topo(cluster_, Catalog::builtin());
    links_ = live_links(cluster_, topo.subnets, /*rdma=*/true);
    ASSERT_EQ(links_.size(), 2u);
    for (const auto& l : links_) {
      HostTarget t;
      t.name = l.host;
      targets_.push_back(t);
    }
  }
  // One Mac: its cable end configured (or not), bridge0, build, MLX, RDMA port state; its peer's
  // address answers pings when `peer_answers`.
  void mac(const LiveLink& l, bool configured, bool bridge_up, const std::string& build,
           const std::string& mlx, const std::string& rdma_state, bool peer_answers) {
    std::string bin = root_ + "/" + l.host + "/bin", state = root_ + "/" + l.host + "/state";
    testing::write_stateful_mac(
        bin, state,
        {"en0 1 10.0.0.5/255.255.255.0",
         l.interface + " 1" + (configured ? " " + l.address + "/255.255.255.252" : ""),
         std::string("bridge0 ") + (bridge_up ? "1" : "0")});
    testing::write_fake_command(bin, "sw_vers", "echo " + build + "\n");
    testing::write_fake_command(bin, "python3", mlx.empty() ? "exit 1\n" : "echo " + mlx + "\n");
    testing::write_fake_command(
        bin, "ibv_devinfo",
        rdma_state.empty() ? "echo 'No IB devices found'\n"
                           : "printf 'hca_id: " + l.rdma_device +
                                 "\\ntransport: Thunderbolt (100)\\nphys_port_cnt: 1\\nport: "
                                 "1\\nstate: " +
                                 rdma_state + "\\n'\n");
    testing::write_fake_command(
        bin, "ping",
        peer_answers ? "for a; do :; done\necho \"64 bytes from $a: icmp_seq=0 ttl=64 "
                       "time=0.361 ms\"\n"
                     : "echo 'Request timeout for icmp_seq 0'\nexit 2\n");
  }
  LiveReport check() {
    testing::LocalShellExecutor ex(root_, "/bin");
    return run_live_check(cluster_, links_, targets_, ex, LiveOptions{});
  }
  static std::string text(const LiveReport& r) {
    std::string out;
    for (const auto& f : r.findings)
      out += f.host + "|" + f.cable + "|" + f.problem + "\n";
    return out;
  }

  std::string root_ = testing::temp_dir();
  Cluster cluster_;
  std::vector<LiveLink> links_;
  std::vector<HostTarget> targets_;
};

TEST_F(MacLiveCheckTest, a_configured_pair_passes_with_its_round_trips) {
  for (const auto& l : links_)
    mac(l, true, false, "25C56", "0.30.1", "PORT_ACTIVE (4)", true);
  LiveReport r = check();
  EXPECT_TRUE(r.failures.empty());
  EXPECT_EQ(text(r), "");
  ASSERT_TRUE(r.round_trip_us[0] && r.round_trip_us[1]);
  EXPECT_DOUBLE_EQ(*r.round_trip_us[0], 361);
}

TEST_F(MacLiveCheckTest, names_the_bridge_rdma_ports_builds_versions_and_silent_peers) {
  const LiveLink &a = links_[0], &b = links_[1];
  mac(a, true, false, "25C56", "0.30.1", "", true);                // RDMA not enabled
  mac(b, false, true, "25B78", "0.29.3", "PORT_DOWN (1)", false);  // nothing set up
  LiveReport r = check();
  EXPECT_TRUE(r.failures.empty());
  std::string cable_a = a.name(), cable_b = b.name();
  EXPECT_EQ(text(r),
            a.host + "|" + cable_a + "|RDMA device " + a.rdma_device + " is missing\n" + b.host +
                "|" + cable_b + "|" + b.interface + " does not have its planned address " +
                b.address + "\n" + b.host + "|" + cable_b + "|no reply from " + a.host + " at " +
                a.address + " over " + b.interface + "\n" + b.host + "|" + cable_b + "|RDMA port " +
                b.rdma_device + " is PORT_DOWN\n" + b.host +
                "||the Thunderbolt Bridge (bridge0) is up\n"
                "||the macOS build differs: " +
                a.host + " 25C56, " + b.host + " 25B78\n" + "||the MLX version differs: " + a.host +
                " 0.30.1, " + b.host + " 0.29.3\n")
      << text(r);
  EXPECT_TRUE(r.round_trip_us[0]);
  EXPECT_FALSE(r.round_trip_us[1]);
}

}  // namespace
}  // namespace meshplan::live_check_test
