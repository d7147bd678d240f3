// Existing hostfiles against the cabling: the ones mlx.distributed_config writes pass; a
// mis-ordered one (MLX #4283), crossed rails and a Thunderbolt coordinator are caught.
#include "topologies/hostfile_check.hpp"

#include <gtest/gtest.h>

#include <fmt/format.h>

#include <fstream>

#include "lib/cluster/cluster_loader.hpp"
#include "tests/test_support.hpp"
#include "topologies/mlx_hostfile_writer.hpp"

namespace meshplan::hostfile_check_test {
namespace {

using testing::fixture_path;
using testing::read_text;

Cluster load_fixture(const std::string& name) {
  return load_cluster_file(fixture_path("clusters/" + name), RealFileSystem(), Catalog::builtin());
}

std::string golden_hostfile(const std::string& file) {
  std::string text = read_text(fixture_path("mlx_golden/" + file));
  size_t a = text.find("Hostfile\n========\n") + 18;
  size_t b = text.find("# ===== stderr");
  return text.substr(a, b - a - 1);
}

HostfileVerdict check(const Cluster& c, const std::string& text,
                      const std::string& backend = "auto") {
  TopologyContext ctx(c, Catalog::builtin());
  return check_hostfile(ctx, read_mlx_hostfile(parse_json_document(text, "hosts.json")),
                        "hosts.json", backend);
}

std::vector<std::string> codes(const HostfileVerdict& v) {
  std::vector<std::string> out;
  for (const auto& i : v.issues)
    out.push_back(i.code);
  return out;
}

bool has(const HostfileVerdict& v, const std::string& code) {
  auto c = codes(v);
  return std::find(c.begin(), c.end(), code) != c.end();
}

TEST(hostfile_check_test, mlx_hostfiles_for_the_shared_scenarios_pass) {
  struct Case {
    std::string cluster, golden;
  };
  for (const auto& c : std::vector<Case>{
           {"mlx_four_hosts_full_mesh.json", "four_hosts_full_mesh/auto_backend.txt"},
           {"mlx_four_hosts_full_mesh.json", "four_hosts_full_mesh/backend_jaccl_ring.txt"},
           {"mlx_four_hosts_full_mesh.json", "four_hosts_full_mesh/backend_ring_auto_setup.txt"},
           {"mlx_two_hosts_two_cables.json", "two_hosts_two_cables/backend_jaccl_ring.txt"},
           {"mlx_two_hosts_two_cables.json", "two_hosts_two_cables/backend_ring_auto_setup.txt"},
           {"mlx_two_hosts_one_cable.json", "two_hosts_one_cable/over_ethernet.txt"}}) {
    HostfileVerdict v = check(load_fixture(c.cluster), golden_hostfile(c.golden));
    EXPECT_TRUE(v.valid()) << c.golden << ": " << (v.issues.empty() ? "" : v.issues[0].message);
    EXPECT_TRUE(v.issues.empty()) << c.golden << ": " << v.issues[0].message;
  }
}

TEST(hostfile_check_test, misordered_ring_hostfile_is_caught) {
  // The ring hostfile with ranks 1 and 2 swapped: each rank keeps its own addresses, but those
  // are on cables to the wrong neighbours.
  std::string text = golden_hostfile("four_hosts_full_mesh/backend_ring_auto_setup.txt");
  MlxHostfile f = read_mlx_hostfile(parse_json_document(text, "hosts.json"));
  std::swap(f.hosts[1], f.hosts[2]);
  HostfileVerdict v = check(load_fixture("mlx_four_hosts_full_mesh.json"), write_mlx_hostfile(f));
  EXPECT_FALSE(v.valid());
  ASSERT_TRUE(has(v, "address-wrong-neighbour")) << ::testing::PrintToString(codes(v));
  EXPECT_NE(v.issues[0].message.find(
                "rank 1 (m3-ultra-3) lists 192.168.0.14 on en3 (cable to m3-ultra-2), but its "
                "left neighbour is rank 0 (m3-ultra-1), which cannot reach it"),
            std::string::npos)
      << v.issues[0].message;
  EXPECT_NE(v.issues[0].fix.find("meshplan emit mlx-hostfile --backend ring"), std::string::npos);
  EXPECT_NE(v.issues[0].fix.find("m3-ultra-1, m3-ultra-2, m3-ultra-3, m3-ultra-4"),
            std::string::npos);
}

TEST(hostfile_check_test, ring_order_on_a_ring_only_cabling) {
  Cluster c = load_cluster(R"(hosts:
  - {name: s1, chip: m3-ultra-80c, memory: 512GiB}
  - {name: s2, chip: m3-ultra-80c, memory: 512GiB}
  - {name: s3, chip: m3-ultra-80c, memory: 512GiB}
  - {name: s4, chip: m3-ultra-80c, memory: 512GiB}
links:
  - {topology: ring, kind: tb5, hosts: all}
)",
                           "ring.yaml", Catalog::builtin());
  // Hand-written in input order although s1 and s3 have no cable between them.
  HostfileVerdict v =
      check(c, R"([{"ssh": "s1", "ips": ["192.168.0.1"]}, {"ssh": "s3", "ips": ["192.168.0.6"]},
                                   {"ssh": "s2", "ips": ["192.168.0.5"]}, {"ssh": "s4", "ips": ["192.168.0.10"]}])");
  EXPECT_EQ(v.backend, "ring");
  ASSERT_TRUE(has(v, "ring-neighbours-not-cabled")) << ::testing::PrintToString(codes(v));
  EXPECT_TRUE(has(v, "address-not-own") || has(v, "address-wrong-neighbour"));
}

TEST(hostfile_check_test, misordered_jaccl_rows_are_caught) {
  // MLX #4283: ranks listed in another order than their rdma rows were written for.
  std::string text = golden_hostfile("four_hosts_full_mesh/backend_jaccl_with_env.txt");
  MlxHostfile f = read_mlx_hostfile(parse_json_document(text, "hosts.json"));
  std::swap(f.hosts[0].ssh, f.hosts[3].ssh);
  std::swap(f.hosts[0].ips, f.hosts[3].ips);
  HostfileVerdict v = check(load_fixture("mlx_four_hosts_full_mesh.json"), write_mlx_hostfile(f));
  EXPECT_FALSE(v.valid());
  ASSERT_TRUE(has(v, "rdma-wrong-peer")) << ::testing::PrintToString(codes(v));
  bool named = false;
  for (const auto& i : v.issues)
    named = named ||
            i.message ==
                "rank 0 (m3-ultra-4) lists rdma_en2 for rank 1 (m3-ultra-2), but the cable on en2 "
                "goes to m3-ultra-1";
  EXPECT_TRUE(named);
}

TEST(hostfile_check_test, crossed_rails_and_coordinator) {
  std::string text = golden_hostfile("two_hosts_two_cables/backend_jaccl_ring.txt");
  MlxHostfile f = read_mlx_hostfile(parse_json_document(text, "hosts.json"));
  std::swap(f.hosts[1].rdma[0].devices[0], f.hosts[1].rdma[0].devices[1]);
  f.hosts[0].ips = {"192.168.0.1"};  // mac-a's address on its Thunderbolt cable
  HostfileVerdict v = check(load_fixture("mlx_two_hosts_two_cables.json"), write_mlx_hostfile(f));
  EXPECT_TRUE(has(v, "rails-crossed")) << ::testing::PrintToString(codes(v));
  EXPECT_TRUE(has(v, "coordinator-on-thunderbolt")) << ::testing::PrintToString(codes(v));
}

TEST(hostfile_check_test, unknown_hosts_and_devices) {
  std::string text = golden_hostfile("two_hosts_one_cable/backend_jaccl.txt");
  MlxHostfile f = read_mlx_hostfile(parse_json_document(text, "hosts.json"));
  f.hosts[1].rdma[0] = RdmaCell::one("rdma_en7");
  HostfileVerdict v = check(load_fixture("mlx_two_hosts_one_cable.json"), write_mlx_hostfile(f));
  EXPECT_TRUE(has(v, "rdma-unknown-device")) << ::testing::PrintToString(codes(v));
  f.hosts[1].ssh = "mac-z";
  v = check(load_fixture("mlx_two_hosts_one_cable.json"), write_mlx_hostfile(f));
  EXPECT_TRUE(has(v, "unknown-host"));
}

// Two Macs on a slow network (`kind`, 10.0.1.0/24, each on en1 of `interface_kind`), and, when
// `cabled`, a Thunderbolt 5 cable between them.
Cluster slow_network_pair(const std::string& kind, const std::string& interface_kind, bool cabled) {
  std::string text = fmt::format(R"(hosts:
  - {{name: a, chip: m4-pro-20c, memory: 64GiB, interfaces: [{{name: en1, kind: {1}, ipv4: 10.0.1.1, prefix: 24}}]}}
  - {{name: b, chip: m4-pro-20c, memory: 64GiB, interfaces: [{{name: en1, kind: {1}, ipv4: 10.0.1.2, prefix: 24}}]}}
links:
  - {{kind: {0}, hosts: all, subnet: 10.0.1.0/24}}
)",
                                 kind, interface_kind);
  if (cabled) text += "  - {topology: full-mesh, kind: tb5, hosts: all}\n";
  return load_cluster(text, "pair.yaml", Catalog::builtin());
}

const char* kSlowHostfile =
    R"([{"ssh": "a", "ips": ["10.0.1.1"]}, {"ssh": "b", "ips": ["10.0.1.2"]}])";

TEST(hostfile_check_test, wifi_or_1gbe_beside_a_thunderbolt_cable_is_named) {
  for (const auto& [kind, iface] :
       std::vector<std::pair<std::string, std::string>>{{"wifi", "wifi"}, {"1gbe", "ethernet"}}) {
    HostfileVerdict v = check(slow_network_pair(kind, iface, true), kSlowHostfile);
    EXPECT_TRUE(v.valid()) << kind << ": a warning, the ring still runs";
    ASSERT_EQ(v.issues.size(), 2u) << kind << ": " << ::testing::PrintToString(codes(v));
    for (const CheckIssue& i : v.issues) {
      EXPECT_EQ(i.code, "slower-network-address");
      EXPECT_EQ(i.severity, Severity::kWarning);
      EXPECT_NE(i.message.find("a Thunderbolt 5 cable joins"), std::string::npos) << i.message;
      EXPECT_NE(i.message.find("(" + kind + ")"), std::string::npos) << i.message;
    }
    EXPECT_NE(v.issues[1].message.find("rank 1 (b) lists 10.0.1.2 on en1"), std::string::npos)
        << v.issues[1].message;
    // The fix: b's end of the cable (the /30 setup gives it), or a hostfile written for the cable.
    EXPECT_NE(v.issues[1].fix.find("list b's 192.168.0.2 (en"), std::string::npos)
        << v.issues[1].fix;
    EXPECT_NE(v.issues[1].fix.find("meshplan emit mlx-hostfile --backend ring"), std::string::npos)
        << v.issues[1].fix;
  }
}

TEST(hostfile_check_test, slow_network_without_a_faster_link_is_not_named) {
  HostfileVerdict v = check(slow_network_pair("wifi", "wifi", false), kSlowHostfile);
  EXPECT_TRUE(v.issues.empty()) << ::testing::PrintToString(codes(v));
  // A 10 GbE network beside a Thunderbolt 5 cable is not much slower for TCP: no finding.
  v = check(slow_network_pair("10gbe", "ethernet", true), kSlowHostfile);
  EXPECT_FALSE(has(v, "slower-network-address")) << v.issues[0].message;
}

TEST(hostfile_check_test, cli_exits_1_on_a_misordered_hostfile) {
  std::string text = golden_hostfile("four_hosts_full_mesh/backend_ring_auto_setup.txt");
  MlxHostfile f = read_mlx_hostfile(parse_json_document(text, "hosts.json"));
  std::swap(f.hosts[1], f.hosts[2]);
  std::string path = testing::temp_dir() + "/hosts.json";
  std::ofstream(path) << write_mlx_hostfile(f);
  auto r = testing::run_meshplan(
      {"check", "-c", fixture_path("clusters/mlx_four_hosts_full_mesh.json"), "--hostfile", path});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("which cannot reach it"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("FAILED: the hostfile does not match the cabling"), std::string::npos)
      << r.out;
  std::ofstream(path) << text;
  r = testing::run_meshplan(
      {"check", "-c", fixture_path("clusters/mlx_four_hosts_full_mesh.json"), "--hostfile", path});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
}

}  // namespace
}  // namespace meshplan::hostfile_check_test
