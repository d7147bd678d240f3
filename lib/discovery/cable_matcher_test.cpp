#include "lib/discovery/cable_matcher.hpp"

#include <gtest/gtest.h>

#include "lib/discovery/host_builder.hpp"
#include "tests/dock_pair.hpp"
#include "tests/test_support.hpp"

namespace meshplan {
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

}  // namespace
}  // namespace meshplan
