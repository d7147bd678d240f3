// The topology rules on the cases users hit: a mesh missing one cable, a chain that is no ring, a
// mixed Thunderbolt 4/5 mesh, port budgets, RDMA off, the bridge, address ranges in use.
#include "topologies/backend_rules.hpp"

#include <gtest/gtest.h>

#include "lib/cluster/cluster_loader.hpp"
#include "topologies/ring_search.hpp"

namespace meshplan::backend_rules_test {
namespace {

Cluster load(const std::string& yaml) {
  return load_cluster(yaml, "c.yaml", Catalog::builtin());
}

CheckReport check(const Cluster& c, const std::string& backend = "auto") {
  TopologyContext ctx(c, Catalog::builtin());
  CheckOptions o;
  o.backend = backend;
  return check_cluster(ctx, o);
}

std::vector<const CheckIssue*> issues(const CheckReport& r, const std::string& backend,
                                      const std::string& code) {
  std::vector<const CheckIssue*> out;
  const std::vector<CheckIssue>& list = backend.empty() ? r.general : r.find(backend)->issues;
  for (const auto& i : list)
    if (i.code == code) out.push_back(&i);
  return out;
}

std::string minis(int n, bool rdma = true) {
  std::string s = "hosts:\n";
  for (int i = 1; i <= n; ++i)
    s += "  - {name: mini-" + std::to_string(i) + ", chip: m4-pro-20c, memory: 64GiB" +
         (rdma ? ", rdma_enabled: true" : "") + "}\n";
  return s;
}

std::string studios(int n) {
  std::string s = "hosts:\n";
  for (int i = 1; i <= n; ++i)
    s += "  - {name: s" + std::to_string(i) +
         ", chip: m3-ultra-80c, memory: 512GiB, rdma_enabled: true, interfaces: [{name: en0, kind: "
         "ethernet, ipv4: 10.0.0." +
         std::to_string(i) + "}]}\n";
  return s;
}

TEST(backend_rules_test, mesh_missing_one_cable_names_both_free_ports) {
  Cluster c = load(minis(4) + R"(links:
  - {a: mini-1:1, b: mini-2:1, kind: tb5, rdma: true}
  - {a: mini-1:2, b: mini-4:1, kind: tb5, rdma: true}
  - {a: mini-2:2, b: mini-3:1, kind: tb5, rdma: true}
  - {a: mini-2:3, b: mini-4:2, kind: tb5, rdma: true}
  - {a: mini-3:2, b: mini-4:3, kind: tb5, rdma: true}
)");
  CheckReport r = check(c);
  const BackendVerdict* jaccl = r.find("jaccl");
  ASSERT_FALSE(jaccl->valid);
  auto missing = issues(r, "jaccl", "mesh-missing-cable");
  ASSERT_EQ(missing.size(), 1u);
  EXPECT_EQ(missing[0]->message, "Incomplete mesh, mini-1 is not connected to mini-3");
  ASSERT_EQ(missing[0]->add_cables.size(), 1u);
  const CableToAdd& add = missing[0]->add_cables[0];
  EXPECT_EQ(add.a.host, "mini-1");
  EXPECT_EQ(add.a.port, "3");
  EXPECT_EQ(add.a.interface, "en4");
  EXPECT_EQ(add.b.host, "mini-3");
  EXPECT_EQ(add.b.port, "3");
  EXPECT_EQ(add.b.interface, "en4");
  EXPECT_EQ(missing[0]->fix,
            "connect mini-1 port 3 (en4) to mini-3 port 3 (en4) with a Thunderbolt 5 cable");
  // The four still form a ring with RDMA, so auto falls back to jaccl-ring in that ring's order.
  EXPECT_EQ(r.chosen, "jaccl-ring");
  EXPECT_EQ(r.find("jaccl-ring")->ranks,
            (std::vector<std::string>{"mini-1", "mini-2", "mini-3", "mini-4"}));
}

TEST(backend_rules_test, every_missing_mesh_cable_gets_distinct_ports) {
  // A ring of four minis: two diagonals are missing; each host has one free port left.
  Cluster c = load(minis(4) + "links:\n  - {topology: ring, kind: tb5, rdma: true, hosts: all}\n");
  CheckReport r = check(c, "jaccl");
  auto missing = issues(r, "jaccl", "mesh-missing-cable");
  ASSERT_EQ(missing.size(), 2u);
  std::set<std::pair<std::string, std::string>> used;
  for (const auto* m : missing) {
    for (const CablePlug* p : {&m->add_cables[0].a, &m->add_cables[0].b}) {
      EXPECT_FALSE(p->port.empty()) << m->fix;
      EXPECT_TRUE(used.insert({p->host, p->port}).second)
          << p->host << ":" << p->port << " suggested twice";
    }
  }
  EXPECT_EQ(r.chosen, "jaccl");
  EXPECT_FALSE(r.ok());
}

TEST(backend_rules_test, chain_gets_the_fewest_cables_that_close_a_ring) {
  Cluster c =
      load(studios(5) + "links:\n  - {topology: chain, kind: tb5, rdma: true, hosts: all}\n");
  CheckReport r = check(c, "ring");
  EXPECT_FALSE(r.ok());
  auto missing = issues(r, "ring", "ring-missing");
  ASSERT_EQ(missing.size(), 1u);
  EXPECT_EQ(missing[0]->message, "Could not find a full ring over the Thunderbolt cables.");
  ASSERT_EQ(missing[0]->add_cables.size(), 1u);
  const CableToAdd& add = missing[0]->add_cables[0];
  std::set<std::string> ends = {add.a.host, add.b.host};
  EXPECT_EQ(ends, (std::set<std::string>{"s1", "s5"}));
  EXPECT_FALSE(add.a.port.empty());
  EXPECT_FALSE(add.a.interface.empty());
  EXPECT_NE(missing[0]->fix.find("add 1 cable (the fewest that close a ring)"), std::string::npos)
      << missing[0]->fix;
  // In auto mode nothing Thunderbolt works: neither mesh nor ring (MLX: "Neither thunderbolt mesh
  // nor ring found").
  CheckReport a = check(c);
  EXPECT_EQ(a.chosen, "ethernet");
  EXPECT_FALSE(a.find("jaccl")->valid);
  EXPECT_FALSE(a.find("jaccl-ring")->valid);
}

TEST(backend_rules_test, star_around_a_full_hub_needs_two_cables_between_the_leaves) {
  Cluster c =
      load(minis(4) +
           "links:\n  - {topology: star, kind: tb5, rdma: true, center: mini-1, hosts: all}\n");
  CheckReport r = check(c, "jaccl-ring");
  auto missing = issues(r, "jaccl-ring", "ring-missing");
  ASSERT_EQ(missing.size(), 1u);
  ASSERT_EQ(missing[0]->add_cables.size(), 2u) << missing[0]->fix;
  for (const auto& add : missing[0]->add_cables) {
    EXPECT_NE(add.a.host, "mini-1");  // the hub has no free port: both new cables join leaves
    EXPECT_NE(add.b.host, "mini-1");
    EXPECT_EQ(add.kind, "tb5");
  }
  // Adding the suggested cables really closes a ring.
  std::string yaml =
      minis(4) +
      "links:\n  - {topology: star, kind: tb5, rdma: true, center: mini-1, hosts: all}\n";
  for (const auto& add : missing[0]->add_cables)
    yaml += "  - {a: " + add.a.host + ":" + add.a.port + ", b: " + add.b.host + ":" + add.b.port +
            ", kind: tb5, rdma: true}\n";
  EXPECT_TRUE(check(load(yaml), "jaccl-ring").ok());
}

TEST(backend_rules_test, mixed_tb4_tb5_mesh_is_no_rdma_mesh) {
  Cluster c = load(studios(3) + R"(links:
  - {a: s1:1, b: s2:1, kind: tb5, speed_gbps: 80, rdma: true}
  - {a: s2:2, b: s3:1, kind: tb5, speed_gbps: 80, rdma: true}
  - {a: s1:2, b: s3:2, kind: tb4, speed_gbps: 40}
)");
  CheckReport r = check(c);
  auto tb4 = issues(r, "jaccl", "tb4-cable-for-rdma");
  ASSERT_EQ(tb4.size(), 1u);
  EXPECT_NE(tb4[0]->message.find("s1 and s3 are joined only by cable without RDMA"),
            std::string::npos)
      << tb4[0]->message;
  EXPECT_NE(tb4[0]->message.find("Thunderbolt 4 (40 Gb/s)"), std::string::npos) << tb4[0]->message;
  EXPECT_NE(tb4[0]->fix.find("replace it with a Thunderbolt 5 cable on the same ports"),
            std::string::npos);
  EXPECT_FALSE(r.find("jaccl")->valid);
  EXPECT_FALSE(r.find("jaccl-ring")->valid);  // the RDMA cables form a chain only
  EXPECT_TRUE(r.find("ring")->valid);         // TCP runs over the Thunderbolt 4 cable too
  EXPECT_EQ(r.chosen, "ring");
  EXPECT_EQ(r.rdma_cables, 2u);
  EXPECT_EQ(r.thunderbolt_cables, 3u);
}

TEST(backend_rules_test, tb4_host_in_an_rdma_cluster) {
  Cluster c = load(studios(2) + "  - {name: old, chip: m2-ultra-76c, memory: 192GiB}\n" +
                   "links:\n  - {topology: full-mesh, kind: tb4, hosts: all}\n");
  CheckReport r = check(c);
  auto hw = issues(r, "jaccl", "no-tb5-hardware");
  ASSERT_EQ(hw.size(), 1u);
  EXPECT_EQ(hw[0]->hosts, std::vector<std::string>{"old"});
  EXPECT_EQ(r.chosen, "ring");
}

TEST(backend_rules_test, port_budget_and_rank_limit) {
  Cluster c = load(minis(5) + "links:\n  - {topology: ring, kind: tb5, rdma: true, hosts: all}\n");
  CheckReport r = check(c, "jaccl");
  auto budget = issues(r, "jaccl", "port-budget");
  ASSERT_EQ(budget.size(), 5u);
  EXPECT_EQ(budget[1]->message,
            "a full mesh of 5 needs 4 Thunderbolt 5 ports per host; mini-2 (Mac mini (M4 Pro, "
            "2024)) has 3");
  EXPECT_TRUE(r.find("jaccl-ring")->valid);

  Cluster nine =
      load(studios(9) + "links:\n  - {topology: ring, kind: tb5, rdma: true, hosts: all}\n");
  CheckReport n = check(nine);
  auto limit = issues(n, "jaccl", "jaccl-max-ranks");
  ASSERT_EQ(limit.size(), 1u);
  EXPECT_EQ(limit[0]->message, "JACCL's mesh supports at most 8 ranks; this has 9");
  EXPECT_EQ(n.chosen, "jaccl-ring");
}

TEST(backend_rules_test, hosts_without_rdma_are_named) {
  Cluster c = load(studios(2) +
                   "  - {name: s3, chip: m3-ultra-80c, memory: 512GiB, rdma_enabled: false}\n" +
                   "links:\n  - {topology: full-mesh, kind: tb5, hosts: all}\n");
  CheckReport r = check(c, "jaccl");
  auto off = issues(r, "jaccl", "rdma-disabled");
  ASSERT_EQ(off.size(), 1u);
  EXPECT_EQ(off[0]->message, "s3 does not seem to have RDMA enabled");
  EXPECT_NE(off[0]->fix.find("rdma_ctl enable"), std::string::npos);
}

TEST(backend_rules_test, bridge_builds_and_one_sided_cables_are_reported) {
  Cluster c = load(R"(hosts:
  - name: a
    chip: m3-ultra-80c
    memory: 512GiB
    rdma_enabled: true
    os: {kind: macos, version: "26.2", build: 25C56}
    thunderbolt_bridge: {up: true, members: [en2, en3]}
    interfaces: [{name: en0, kind: ethernet, ipv4: 10.0.0.1}]
  - name: b
    chip: m3-ultra-80c
    memory: 512GiB
    rdma_enabled: true
    os: {kind: macos, version: "26.3", build: 25D5}
links:
  - {a: a:1, b: b:1, kind: tb5, rdma: true}
findings:
  - {kind: one-sided-cable, host: b, port: "2", peer: a}
)");
  CheckReport r = check(c);
  auto bridge = issues(r, "", "bridge-up");
  ASSERT_EQ(bridge.size(), 1u);
  EXPECT_NE(bridge[0]->message.find(
                "Thunderbolt Bridge (bridge0) is up on a, holding en2 that the cables use"),
            std::string::npos)
      << bridge[0]->message;
  EXPECT_NE(bridge[0]->fix.find("sudo ifconfig bridge0 down"), std::string::npos);
  ASSERT_EQ(issues(r, "", "one-sided-cable").size(), 1u);
  EXPECT_NE(issues(r, "", "one-sided-cable")[0]->message.find("b port 2 sees a"),
            std::string::npos);
  ASSERT_EQ(issues(r, "jaccl", "macos-build-mismatch").size(), 1u);
  EXPECT_EQ(r.chosen, "jaccl");  // warnings do not invalidate
}

TEST(backend_rules_test, coordinator_on_a_thunderbolt_port_is_refused) {
  Cluster c = load(R"(hosts:
  - {name: a, chip: m4-max-40c, memory: 128GiB, rdma_enabled: true, interfaces: [{name: en1, kind: thunderbolt, ipv4: 192.168.0.1}]}
  - {name: b, chip: m4-max-40c, memory: 128GiB, rdma_enabled: true}
links:
  - {a: a:1, b: b:1, kind: tb5, rdma: true}
)");
  CheckReport r = check(c, "jaccl");
  auto coord = issues(r, "jaccl", "coordinator-on-thunderbolt");
  ASSERT_EQ(coord.size(), 1u);
  EXPECT_NE(coord[0]->message.find("rank 0 (a)"), std::string::npos);
  EXPECT_FALSE(r.ok());
}

TEST(backend_rules_test, plan_order_must_follow_the_ring) {
  Cluster c =
      load(studios(4) + "links:\n  - {topology: ring, kind: tb5, rdma: true, hosts: all}\n");
  TopologyContext ctx(c, Catalog::builtin());
  CheckOptions o;
  o.backend = "ring";
  o.hosts = {"s1", "s3", "s2", "s4"};
  o.fixed_order = true;
  CheckReport r = check_cluster(ctx, o);
  auto bad = issues(r, "ring", "plan-order-not-ring");
  ASSERT_EQ(bad.size(), 1u);
  EXPECT_NE(bad[0]->message.find("s1 - s3 not cabled"), std::string::npos) << bad[0]->message;
  o.hosts = {"s2", "s3", "s4", "s1"};
  EXPECT_TRUE(check_cluster(ctx, o).ok());
  EXPECT_EQ(check_cluster(ctx, o).find("ring")->ranks, o.hosts);
}

TEST(backend_rules_test, star_over_wifi_only_runs_ethernet) {
  Cluster c = load_cluster_file(
      std::string(MESHPLAN_SOURCE_DIR) + "/examples/clusters/thunderbolt4-star-3.yaml",
      RealFileSystem(), Catalog::builtin());
  CheckReport r = check(c);
  EXPECT_FALSE(r.find("ring")->valid);  // a star is no ring, and Wi-Fi does not carry one
  EXPECT_TRUE(r.find("ethernet")->valid);
  EXPECT_EQ(r.chosen, "ethernet");
}

// Up to kAllPairLinksMaxHosts hosts every pair gets its best link; past it, only cabled pairs (a
// shared network would make the list n²) and the report says the list is not complete.
TEST(backend_rules_test, large_clusters_list_only_cabled_pairs) {
  const std::string net = "  - {kind: 10gbe, hosts: all}\n";
  CheckReport small = check(load(minis(3) + "links:\n" + net));
  EXPECT_TRUE(small.links_complete);
  EXPECT_EQ(small.links.size(), 3u);
  EXPECT_EQ(check_report_json(small)["links_complete"], true);

  CheckReport big = check(load(minis(kAllPairLinksMaxHosts + 1) + "links:\n" + net +
                               "  - {a: mini-7:1, b: mini-3:1, kind: tb5, rdma: true}\n"));
  EXPECT_FALSE(big.links_complete);
  ASSERT_EQ(big.links.size(), 1u);
  EXPECT_EQ(big.links[0].a, "mini-3");
  EXPECT_EQ(big.links[0].b, "mini-7");
  EXPECT_EQ(big.links[0].kind, "tb5-rdma");
  EXPECT_EQ(check_report_json(big)["links_complete"], false);
}

}  // namespace
}  // namespace meshplan::backend_rules_test

namespace meshplan::backend_rules_test {
namespace {

// Linux GPU servers (two HGX nodes on InfiniBand) take no Thunderbolt cable: JACCL is refused
// because it runs on Macs only, with no cable to add, and the ring runs over their network
// without a word about Thunderbolt rings.
TEST(backend_rules_test, linux_servers_get_no_thunderbolt_cabling_advice) {
  Cluster c = load_cluster_file(
      std::string(MESHPLAN_SOURCE_DIR) + "/tests/fixtures/launch/two_hgx_rails.yaml",
      RealFileSystem(), Catalog::builtin());
  CheckReport r = check(c);
  for (const auto& b : r.backends) {
    for (const auto& i : b.issues) {
      EXPECT_TRUE(i.add_cables.empty()) << b.backend << ": " << i.message;
      EXPECT_EQ(i.fix.find("cable"), std::string::npos) << b.backend << ": " << i.fix;
      EXPECT_EQ(i.message.find("Thunderbolt ring"), std::string::npos) << i.message;
    }
    if (b.backend == "jaccl" || b.backend == "jaccl-ring") {
      EXPECT_FALSE(b.valid);
      ASSERT_EQ(b.issues.size(), 2u) << b.backend;  // one per host
      EXPECT_EQ(b.issues[0].code, "not-a-mac");
    }
  }
  EXPECT_EQ(r.chosen, "ring");
}

// The same in a plan's rank order: two DGX Sparks joined by a 200GbE cable, with no Thunderbolt
// port, are never told to connect a Thunderbolt cable; the ring runs over their network. A Mac and
// a Linux host in a plan's order get no Thunderbolt cable between them either.
TEST(backend_rules_test, a_plan_order_over_hosts_without_thunderbolt_gets_no_cabling_advice) {
  Cluster sparks = load(R"(
hosts:
  - {name: spark-1, chip: gb10, memory: 128GiB, os: linux, interfaces: [{name: enP7s7, kind: ethernet, ipv4: 192.168.1.11, prefix: 24}, {name: enp1s0f0np0, kind: ethernet, rdma_device: rocep1s0f0}]}
  - {name: spark-2, chip: gb10, memory: 128GiB, os: linux, interfaces: [{name: enP7s7, kind: ethernet, ipv4: 192.168.1.12, prefix: 24}, {name: enp1s0f0np0, kind: ethernet, rdma_device: rocep1s0f0}]}
links:
  - {kind: 10gbe, hosts: all, subnet: 192.168.1.0/24}
  - {a: {host: spark-1, interface: enp1s0f0np0}, b: {host: spark-2, interface: enp1s0f0np0}, kind: 200gbe, rdma: true}
)");
  TopologyContext ctx(sparks, Catalog::builtin());
  CheckOptions o;
  o.backend = "ring";
  o.hosts = {"spark-1", "spark-2"};
  o.fixed_order = true;
  CheckReport r = check_cluster(ctx, o);
  const BackendVerdict* ring = r.find("ring");
  ASSERT_NE(ring, nullptr);
  EXPECT_TRUE(ring->valid);
  EXPECT_EQ(ring->transport, "network");
  for (const auto& i : ring->issues) {
    EXPECT_TRUE(i.add_cables.empty()) << i.message;
    EXPECT_EQ(i.message.find("Thunderbolt"), std::string::npos) << i.message;
    EXPECT_EQ(i.fix.find("Thunderbolt"), std::string::npos) << i.fix;
  }

  Cluster mixed = load(
      studios(1) +
      R"(  - {name: gpu, os: linux, chip: gb10, memory: 128GiB, interfaces: [{name: eth0, kind: ethernet, ipv4: 10.0.0.9}]}
  - {name: s2, chip: m3-ultra-80c, memory: 512GiB, interfaces: [{name: en0, kind: ethernet, ipv4: 10.0.0.2}]}
links:
  - {a: {host: s1, port: "1"}, b: {host: s2, port: "1"}, kind: tb5}
)");
  TopologyContext mixed_ctx(mixed, Catalog::builtin());
  o.hosts = {"s1", "gpu", "s2"};
  CheckReport m = check_cluster(mixed_ctx, o);
  auto bad = issues(m, "ring", "plan-order-not-ring");
  ASSERT_EQ(bad.size(), 1u);
  EXPECT_NE(bad[0]->message.find("s1 - gpu not cabled"), std::string::npos) << bad[0]->message;
  EXPECT_TRUE(bad[0]->add_cables.empty()) << bad[0]->fix;  // gpu has no Thunderbolt port
  EXPECT_EQ(bad[0]->fix, "plan again with this backend so that the ranks follow the cables");
}

}  // namespace
}  // namespace meshplan::backend_rules_test
