#include "solvers/advice/advice_changes.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "lib/cluster/cluster_loader.hpp"

namespace meshplan::advice_changes_test {
namespace {

const Catalog& catalog() {
  return Catalog::builtin();
}

Cluster cluster(const std::string& yaml) {
  return load_cluster(yaml, "test.yaml", catalog());
}

std::vector<Change> changes_of(const Cluster& c, const std::string& engine = "mlx-lm") {
  static const PlanRequest request = [] {
    PlanRequest r;
    r.engine = "";
    return r;
  }();
  return candidate_changes({c, catalog(), request, "llama-3.3-70b-4bit", {}, {}, engine, false});
}

const Change* find(const std::vector<Change>& changes, const std::string& kind,
                   const std::string& label = "") {
  for (const Change& c : changes)
    if (c.kind == kind && (label.empty() || c.label == label)) return &c;
  return nullptr;
}

Scenario apply(const Cluster& c, const Change& change) {
  return apply_changes(c, PlanRequest{}, {&change}, catalog());
}

TEST(advice_changes_test, rdma_is_enabled_with_the_update_it_needs_and_the_cables_carry_it) {
  Cluster c = cluster(R"(
hosts:
  - {name: a, chip: m4-pro-20c, machine: mac-mini-m4-pro, memory: 64GiB, os: {kind: macos, version: "26.1"}}
  - {name: b, chip: m4-pro-20c, machine: mac-mini-m4-pro, memory: 64GiB, rdma_enabled: true, os: {kind: macos, version: "26.2"}}
links:
  - {a: a:1, b: b:1, kind: tb5}
)");
  auto changes = changes_of(c);
  const Change* rdma = find(changes, "rdma");
  ASSERT_NE(rdma, nullptr);
  EXPECT_EQ(rdma->label, "enable RDMA on a");
  Scenario s = apply(c, *rdma);
  EXPECT_TRUE(s.cluster.find_host("a")->rdma_enabled.value_or(false));
  EXPECT_EQ(s.cluster.find_host("a")->os.version, "26.2");
  EXPECT_TRUE(s.cluster.cables[0].rdma);
  ASSERT_EQ(s.steps.size(), 2u);
  EXPECT_EQ(s.steps[0], "update a to macOS 26.2 or later");
  EXPECT_NE(s.steps[1].find("rdma_ctl enable"), std::string::npos);
}

TEST(advice_changes_test, the_bridge_goes_down_and_the_wired_limit_goes_up) {
  Cluster c = cluster(R"(
hosts:
  - {name: a, chip: m4-pro-20c, machine: mac-mini-m4-pro, memory: 64GiB, rdma_enabled: true, wired_limit_mb: 20000, thunderbolt_bridge: {up: true, members: [en2]}}
  - {name: b, chip: m4-pro-20c, machine: mac-mini-m4-pro, memory: 64GiB, rdma_enabled: true}
links:
  - {a: a:1, b: b:1, kind: tb5, rdma: true}
)");
  auto changes = changes_of(c);
  const Change* bridge = find(changes, "bridge");
  ASSERT_NE(bridge, nullptr);
  EXPECT_FALSE(apply(c, *bridge).cluster.find_host("a")->thunderbolt_bridge->up);
  const Change* wired = find(changes, "wired-limit");
  ASSERT_NE(wired, nullptr);
  Scenario s = apply(c, *wired);
  // 64 GiB less 15 %: 55,705 MB.
  EXPECT_EQ(*s.cluster.find_host("a")->wired_limit_mb, 55705);
  EXPECT_EQ(s.steps, std::vector<std::string>{"on a: sudo sysctl iogpu.wired_limit_mb=55705"});
  EXPECT_EQ(find(changes, "rdma"), nullptr);  // both have it
}

TEST(advice_changes_test, linux_hosts_get_a_direct_cable_on_spare_interfaces) {
  Cluster c = cluster(R"(
hosts:
  - name: g1
    os: {kind: linux}
    gpus: 1 x h100-pcie
    memory: 256GiB
    interfaces: [{name: eth0, kind: ethernet, ipv4: 10.0.0.1, prefix: 24, speed_gbps: 10}, {name: ens1, kind: ethernet, speed_gbps: 100, rdma_device: mlx5_0}]
  - name: g2
    os: {kind: linux}
    gpus: 1 x h100-pcie
    memory: 256GiB
    interfaces: [{name: eth0, kind: ethernet, ipv4: 10.0.0.2, prefix: 24, speed_gbps: 10}, {name: ens2, kind: ethernet, speed_gbps: 25}]
links:
  - {kind: 10gbe, hosts: all, subnet: 10.0.0.0/24}
)");
  auto changes = changes_of(c, "vllm");
  const Change* cable = find(changes, "network-cable");
  ASSERT_NE(cable, nullptr);
  Scenario s = apply(c, *cable);
  ASSERT_EQ(s.cluster.cables.size(), 1u);
  const Cable& k = s.cluster.cables[0];
  EXPECT_EQ(k.a.interface, "ens1");
  EXPECT_EQ(k.b.interface, "ens2");
  EXPECT_EQ(k.kind, LinkKind::k25gbe);  // the slower end's speed
  EXPECT_FALSE(k.rdma);                 // g2's port has no RDMA device
  EXPECT_EQ(s.steps, std::vector<std::string>{"connect g1 ens1 to g2 ens2 with a 25gbe cable"});
  EXPECT_EQ(find(changes, "cable"), nullptr);  // no Thunderbolt between Linux hosts
}

TEST(advice_changes_test, a_full_port_gets_one_of_its_cables_moved) {
  Cluster c = cluster(R"(
hosts:
  - {name: m1, chip: m4-pro-20c, machine: mac-mini-m4-pro, memory: 64GiB, rdma_enabled: true}
  - {name: m2, chip: m4-pro-20c, machine: mac-mini-m4-pro, memory: 64GiB, rdma_enabled: true}
  - {name: m3, chip: m4-pro-20c, machine: mac-mini-m4-pro, memory: 64GiB, rdma_enabled: true}
  - {name: m4, chip: m4-pro-20c, machine: mac-mini-m4-pro, memory: 64GiB, rdma_enabled: true}
  - {name: m5, chip: m4-pro-20c, machine: mac-mini-m4-pro, memory: 64GiB, rdma_enabled: true}
links:
  - {a: m1:1, b: m2:1, kind: tb5, rdma: true}
  - {a: m1:2, b: m3:1, kind: tb5, rdma: true}
  - {a: m1:3, b: m4:1, kind: tb5, rdma: true}
)");
  auto changes = changes_of(c);
  // m1's three ports are taken: a cable to m5 means moving one of them.
  EXPECT_EQ(find(changes, "cable", "cable m1 - m5"), nullptr);
  const Change* move = find(changes, "move-cable", "move cable m1 - m2 to m1 - m5");
  ASSERT_NE(move, nullptr);
  Scenario s = apply(c, *move);
  EXPECT_TRUE(s.invalid.empty()) << s.invalid;
  ASSERT_EQ(s.cluster.cables.size(), 3u);
  const Cable& k = s.cluster.cables.back();
  EXPECT_EQ(k.a.host, "m1");
  EXPECT_EQ(k.a.port, "1");  // the port the moved cable freed
  EXPECT_EQ(k.b.host, "m5");
  EXPECT_EQ(s.steps[0], "unplug the cable between m1 port 1 and m2");
  EXPECT_EQ(s.steps[1],
            "plug it into m1 port 1 (en2) to m5 port 1 (en2) with a Thunderbolt 5 cable");
  // Two cables on one host take two ports; a third finds none.
  const Change* to_m5 = find(changes, "cable", "cable m2 - m5");
  const Change* to_m3 = find(changes, "cable", "cable m2 - m3");
  ASSERT_NE(to_m5, nullptr);
  ASSERT_NE(to_m3, nullptr);
  Scenario both = apply_changes(c, PlanRequest{}, {to_m5, to_m3}, catalog());
  EXPECT_TRUE(both.invalid.empty()) << both.invalid;
  EXPECT_NE(both.cables[0].a_port, both.cables[1].a_port);
  const Change* to_m4 = find(changes, "cable", "cable m2 - m4");
  ASSERT_NE(to_m4, nullptr);
  Scenario three = apply_changes(c, PlanRequest{}, {to_m5, to_m3, to_m4}, catalog());
  EXPECT_EQ(three.invalid, "m2 has no free Thunderbolt port");
}

TEST(advice_changes_test, engines_that_run_on_every_host_are_offered_but_the_one_in_use) {
  Cluster c = cluster(R"(
hosts:
  - {name: a, chip: m4-pro-20c, machine: mac-mini-m4-pro, memory: 64GiB}
  - {name: b, chip: m4-pro-20c, machine: mac-mini-m4-pro, memory: 64GiB}
links:
  - {a: a:1, b: b:1, kind: tb5}
)");
  std::vector<std::string> engines;
  for (const Change& ch : changes_of(c))
    if (ch.kind == "engine") engines.push_back(ch.label);
  EXPECT_EQ(engines, (std::vector<std::string>{"run it with exo", "run it with llama-rpc"}));
}

}  // namespace
}  // namespace meshplan::advice_changes_test
