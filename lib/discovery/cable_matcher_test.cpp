#include "lib/discovery/cable_matcher.hpp"

#include <gtest/gtest.h>

#include <sstream>

#include "lib/discovery/host_builder.hpp"
#include "tests/dock_pair.hpp"
#include "tests/test_support.hpp"

namespace meshplan::cable_matcher_test {
namespace {

using testing::dock_pair;
using testing::fixture_path;
using testing::read_text;

struct Probed {
  std::vector<Host> hosts;
  std::vector<std::vector<TbBus>> buses;
};

ProbeSet mac_probes(const std::string& thunderbolt, const std::string& networksetup,
                    const std::string& ibv = "") {
  ProbeSet s;
  s.probes["system_profiler"].out = thunderbolt;
  s.probes["networksetup"].out = networksetup;
  if (!ibv.empty()) s.probes["ibv_devices"].out = ibv;
  return s;
}

Probed probe(const std::vector<std::pair<std::string, ProbeSet>>& hosts) {
  Probed p;
  for (const auto& [name, set] : hosts) {
    BuiltHost b = build_host(HostTarget{name, "", name, 0}, set, Catalog::builtin());
    EXPECT_EQ(b.failure, HostFailureKind::kNone) << name << ": " << b.failure_message;
    p.hosts.push_back(b.host);
    p.buses.push_back(b.buses);
  }
  return p;
}

const Finding* find_finding(const CableMatch& m, const std::string& kind) {
  for (const auto& f : m.findings) {
    if (f.kind == kind) return &f;
  }
  return nullptr;
}

TEST(cable_matcher_test, the_two_real_tb5_samples_are_one_cable) {
  Probed p = probe({
      {"mbp", mac_probes(read_text(fixture_path("tb_sample_1_macbookpro_m5max_tb5.json")),
                         read_text(fixture_path("networksetup_m5max_macbookpro_macos26_5.txt")))},
      {"studio", mac_probes(read_text(fixture_path("tb_sample_2_macstudio_m3ultra_tb5.json")),
                            read_text(fixture_path("networksetup_m3ultra_macstudio_trimmed.txt")))},
  });
  CableMatch m = match_cables(p.hosts, p.buses, Catalog::builtin());
  ASSERT_EQ(m.cables.size(), 1u);
  const Cable& c = m.cables[0];
  EXPECT_EQ(c.a, (Endpoint{"mbp", "1"}));
  EXPECT_EQ(c.b, (Endpoint{"studio", "2"}));
  EXPECT_EQ(c.kind, LinkKind::kTb5);
  EXPECT_DOUBLE_EQ(c.speed_gbps, 80);
  EXPECT_FALSE(c.rdma) << "neither host listed RDMA devices";
  EXPECT_TRUE(m.findings.empty()) << m.findings[0].message;  // the OWC drive is no peer
  EXPECT_EQ(p.hosts[0].find_port("1")->interface, "en1");
  EXPECT_EQ(p.hosts[1].find_port("2")->interface, "en3");
}

TEST(cable_matcher_test, peer_behind_a_dock_is_found_and_classified_by_speed) {
  auto [studio, mbp] = dock_pair();
  Probed p = probe({
      {"studio",
       mac_probes(studio, read_text(fixture_path("networksetup_m3ultra_macstudio_trimmed.txt")))},
      {"mbp",
       mac_probes(mbp, read_text(fixture_path("networksetup_m4max_macbookpro_trimmed.txt")))},
  });
  CableMatch m = match_cables(p.hosts, p.buses, Catalog::builtin());
  ASSERT_EQ(m.cables.size(), 2u);
  EXPECT_EQ(m.cables[0].a, (Endpoint{"studio", "3"}));
  EXPECT_EQ(m.cables[0].b, (Endpoint{"mbp", "3"}));
  EXPECT_DOUBLE_EQ(m.cables[0].speed_gbps, 40);
  EXPECT_EQ(m.cables[0].kind, LinkKind::kTb3) << "through a Thunderbolt 3 dock";
  EXPECT_EQ(m.cables[1].a, (Endpoint{"studio", "6"}));
  EXPECT_EQ(m.cables[1].b, (Endpoint{"mbp", "2"}));
  EXPECT_EQ(m.cables[1].kind, LinkKind::kTb5);
  EXPECT_TRUE(m.findings.empty());
}

TEST(cable_matcher_test, one_sided_cable_is_kept_and_reported) {
  auto [studio, mbp] = dock_pair(false);
  Probed p = probe({
      {"studio",
       mac_probes(studio, read_text(fixture_path("networksetup_m3ultra_macstudio_trimmed.txt")))},
      {"mbp",
       mac_probes(mbp, read_text(fixture_path("networksetup_m4max_macbookpro_trimmed.txt")))},
  });
  CableMatch m = match_cables(p.hosts, p.buses, Catalog::builtin());
  ASSERT_EQ(m.cables.size(), 2u);
  const Finding* f = find_finding(m, "one-sided-cable");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->host, "studio");
  EXPECT_EQ(f->port, "3");
  EXPECT_EQ(f->peer, "mbp");
  EXPECT_NE(f->message.find("studio port 3 (en4) sees mbp port 3 (en3)"), std::string::npos)
      << f->message;
}

TEST(cable_matcher_test, peers_outside_the_host_list_become_findings) {
  auto [studio, mbp] = dock_pair();
  Probed p =
      probe({{"studio", mac_probes(studio, read_text(fixture_path(
                                               "networksetup_m3ultra_macstudio_trimmed.txt")))}});
  CableMatch m = match_cables(p.hosts, p.buses, Catalog::builtin());
  EXPECT_TRUE(m.cables.empty());
  ASSERT_EQ(m.findings.size(), 2u);
  EXPECT_EQ(m.findings[0].kind, "unknown-peer");
  EXPECT_EQ(m.findings[0].port, "3");
  EXPECT_EQ(m.findings[0].peer, "MacBook Pro (Mac16,5)");
  EXPECT_NE(m.findings[0].message.find("behind ThunderBay Flex 8"), std::string::npos)
      << m.findings[0].message;
  EXPECT_EQ(m.findings[1].port, "6");
}

TEST(cable_matcher_test, rdma_needs_tb5_and_rdma_on_both_hosts) {
  std::string dir = "mlx_golden/two_hosts_one_cable/inputs/";
  auto set = [&](const std::string& host, bool with_ibv) {
    return mac_probes(read_text(fixture_path(dir + host + ".system_profiler.json")),
                      read_text(fixture_path(dir + host + ".networksetup.txt")),
                      with_ibv ? read_text(fixture_path(dir + host + ".ibv_devices.txt")) : "");
  };
  Probed both = probe({{"mac-a", set("mac-a", true)}, {"mac-b", set("mac-b", true)}});
  CableMatch m = match_cables(both.hosts, both.buses, Catalog::builtin());
  ASSERT_EQ(m.cables.size(), 1u);
  EXPECT_TRUE(m.cables[0].rdma);
  Probed one = probe({{"mac-a", set("mac-a", true)}, {"mac-b", set("mac-b", false)}});
  one.hosts[1].rdma_enabled = false;
  m = match_cables(one.hosts, one.buses, Catalog::builtin());
  ASSERT_EQ(m.cables.size(), 1u);
  EXPECT_FALSE(m.cables[0].rdma);
  // A 40 Gb/s link between the same two hosts: Thunderbolt 4, never RDMA.
  for (auto& b : both.buses) {
    for (auto& bus : b) {
      if (bus.speed_gbps > 0) bus.speed_gbps = 40;
      bus.max_speed_gbps = 40;
    }
  }
  m = match_cables(both.hosts, both.buses, Catalog::builtin());
  ASSERT_EQ(m.cables.size(), 1u);
  EXPECT_EQ(m.cables[0].kind, LinkKind::kTb4);
  EXPECT_FALSE(m.cables[0].rdma);
}

// Linux hosts built from their probe outputs: `ip -j addr`, the /sys reading and the neighbours
// each interface saw.
struct LinuxProbe {
  std::string name;
  std::string sys_net;  // NAME|MAC|STATE|SPEED lines
  std::string neigh;    // ip -j -6 neigh show
  std::string rdma_net;
};

std::pair<std::vector<Host>, std::vector<std::vector<NetSighting>>> probe_linux(
    const std::vector<LinuxProbe>& hosts) {
  std::vector<Host> out;
  std::vector<std::vector<NetSighting>> sightings;
  for (const auto& l : hosts) {
    ProbeSet s;
    s.probes["uname"].out = "Linux\n";
    s.probes["meminfo"].out = "MemTotal: 16384000 kB\n";
    std::string ip = "[";
    std::istringstream lines(l.sys_net);
    std::string line;
    while (std::getline(lines, line)) {
      std::string name = line.substr(0, line.find('|'));
      if (ip.size() > 1) ip += ",";
      ip += R"({"ifname":")" + name + R"(","link_type":"ether","flags":["UP"],"addr_info":[]})";
    }
    s.probes["ip_addr"].out = ip + "]";
    s.probes["sys_net"].out = l.sys_net;
    s.probes["neigh"].out = l.neigh;
    if (!l.rdma_net.empty()) s.probes["rdma_net"].out = l.rdma_net;
    BuiltHost b = build_host(HostTarget{l.name, "", l.name, 0}, s, Catalog::builtin());
    EXPECT_EQ(b.failure, HostFailureKind::kNone) << l.name << ": " << b.failure_message;
    out.push_back(b.host);
    sightings.push_back(b.sightings);
  }
  return {out, sightings};
}

std::string neigh(const std::string& dev, const std::vector<std::string>& macs) {
  std::string s = "[";
  for (const auto& m : macs)
    s += (s.size() > 1 ? "," : "") + std::string(R"({"dst":"fe80::1","dev":")") + dev +
         R"(","lladdr":")" + m + R"(","state":["STALE"]})";
  return s + "]";
}

TEST(cable_matcher_test, linux_interfaces_that_see_each_other_are_one_cable) {
  auto [hosts, seen] = probe_linux({
      {"spark-1", "eno1|aa:00:00:00:01:01|up|1000\nenp1s0f0np0|aa:00:00:00:01:02|up|200000\n",
       neigh("enp1s0f0np0", {"aa:00:00:00:02:02"}), "mlx5_0 enp1s0f0np0\n"},
      {"spark-2", "eno1|aa:00:00:00:02:01|up|1000\nenp1s0f0np0|aa:00:00:00:02:02|up|200000\n",
       neigh("enp1s0f0np0", {"aa:00:00:00:01:02"}), "mlx5_0 enp1s0f0np0\n"},
  });
  EXPECT_EQ(hosts[0].interfaces[1].mac, "aa:00:00:00:01:02");
  EXPECT_EQ(hosts[0].interfaces[1].state, "up");
  EXPECT_EQ(hosts[0].interfaces[1].speed_gbps, 200);
  EXPECT_EQ(hosts[0].interfaces[1].rdma_device, "mlx5_0");
  CableMatch m = match_network_cables(hosts, seen, Catalog::builtin());
  ASSERT_EQ(m.cables.size(), 1u);
  const Cable& c = m.cables[0];
  EXPECT_EQ(c.a, (Endpoint{"spark-1", "", "enp1s0f0np0"}));
  EXPECT_EQ(c.b, (Endpoint{"spark-2", "", "enp1s0f0np0"}));
  EXPECT_EQ(c.kind, LinkKind::k200gbe);
  EXPECT_EQ(c.speed_gbps, 200);
  EXPECT_TRUE(c.rdma);
  EXPECT_TRUE(m.findings.empty());
}

TEST(cable_matcher_test, a_switch_or_a_one_sided_sighting_is_not_a_plain_cable) {
  // eno1 of box-1 sees box-2 and a router: a shared network, not a cable, even though box-2
  // saw only box-1 there.
  // eth9 of box-1 sees box-2's eth9, whose neighbour table was empty.
  auto [hosts, seen] = probe_linux({
      {"box-1", "eno1|aa:00:00:00:01:01|up|1000\neth9|aa:00:00:00:01:09|up|10000\n",
       R"([{"dst":"fe80::2","dev":"eno1","lladdr":"aa:00:00:00:02:01","state":["STALE"]},)"
       R"({"dst":"fe80::9","dev":"eno1","lladdr":"ee:ee:ee:ee:ee:ee","state":["STALE"]},)"
       R"({"dst":"fe80::3","dev":"eth9","lladdr":"aa:00:00:00:02:09","state":["STALE"]}])",
       ""},
      {"box-2", "eno1|aa:00:00:00:02:01|up|1000\neth9|aa:00:00:00:02:09|up|\n",
       neigh("eno1", {"aa:00:00:00:01:01"}), ""},
  });
  CableMatch m = match_network_cables(hosts, seen, Catalog::builtin());
  ASSERT_EQ(m.cables.size(), 1u);
  EXPECT_EQ(m.cables[0].a.interface, "eth9");
  EXPECT_EQ(m.cables[0].kind, LinkKind::k10gbe);  // the end that knows its speed
  EXPECT_FALSE(m.cables[0].rdma);
  const Finding* f = find_finding(m, "one-sided-cable");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->host, "box-1");
  EXPECT_EQ(f->port, "eth9");
  // Nothing seen at all: no cable.
  auto [lone, none] = probe_linux({{"a", "eth0|aa:00:00:00:00:01|up|10000\n", "[]", ""},
                                   {"b", "eth0|aa:00:00:00:00:02|down|\n", "[]", ""}});
  EXPECT_TRUE(match_network_cables(lone, none, Catalog::builtin()).cables.empty());
  EXPECT_EQ(lone[1].interfaces[0].state, "down");
}

TEST(cable_matcher_test, ethernet_kind_from_speed) {
  EXPECT_EQ(ethernet_kind_for_speed(400), LinkKind::k400gbe);
  EXPECT_EQ(ethernet_kind_for_speed(200), LinkKind::k200gbe);
  EXPECT_EQ(ethernet_kind_for_speed(100), LinkKind::k100gbe);
  EXPECT_EQ(ethernet_kind_for_speed(25), LinkKind::k25gbe);
  EXPECT_EQ(ethernet_kind_for_speed(10), LinkKind::k10gbe);
  EXPECT_EQ(ethernet_kind_for_speed(2.5), LinkKind::k2_5gbe);
  EXPECT_EQ(ethernet_kind_for_speed(1), LinkKind::k1gbe);
}

}  // namespace
}  // namespace meshplan::cable_matcher_test
