#include "lib/cluster/cluster_reader.hpp"

#include <gtest/gtest.h>

#include "lib/cluster/cluster_loader.hpp"
#include "lib/cluster/cluster_writer.hpp"
#include "lib/cluster/host_figures.hpp"
#include "lib/cluster/value_readers.hpp"
#include "lib/core/error.hpp"
#include "tests/test_support.hpp"

namespace meshplan::cluster_reader_test {
namespace {

Cluster load(const std::string& text, const std::string& name = "c.yaml") {
  return load_cluster(text, name, Catalog::builtin());
}

std::string load_error(const std::string& text, const std::string& name = "c.yaml") {
  try {
    load(text, name);
  } catch (const Error& e) {
    EXPECT_EQ(exit_code(e.kind()), 2) << e.what();
    return e.what();
  }
  return "no error";
}

TEST(cluster_reader_test, reads_units_and_catalog_defaults) {
  Cluster c = load(R"(
hosts:
  - name: studio
    chip: m3-ultra-80c
    memory: 512GiB
    usable_memory: 400GB
    mem_bandwidth: 800GB/s
    flops: 28.6T
links:
  - {kind: 10gbe, hosts: all}
)");
  ASSERT_EQ(c.hosts.size(), 1u);
  const Host& h = c.hosts[0];
  EXPECT_EQ(h.memory, 512ull << 30);
  EXPECT_EQ(*h.usable_memory, 400000000000ull);
  EXPECT_DOUBLE_EQ(*h.mem_bandwidth, 800e9);
  EXPECT_DOUBLE_EQ(*h.flops, 28.6e12);
  // The Mac Studio M3 Ultra has six Thunderbolt 5 receptacles, "Thunderbolt N" = en(N+1).
  ASSERT_EQ(h.ports.size(), 6u);
  EXPECT_EQ(h.ports[0].id, "1");
  EXPECT_EQ(h.ports[0].interface, "en2");
  EXPECT_EQ(h.ports[5].interface, "en7");
  EXPECT_EQ(h.ports[0].generation, 5);
  EXPECT_EQ(h.ports[0].rdma_device, "rdma_en2");
  ASSERT_EQ(c.networks.size(), 1u);
  EXPECT_TRUE(c.networks[0].all_hosts);
}

TEST(cluster_reader_test, malformed_yaml_is_exit_2_with_position) {
  std::string msg = load_error("hosts:\n  - name: a\n    memory: [1, 2\n");
  EXPECT_NE(msg.find("c.yaml:"), std::string::npos) << msg;
  EXPECT_NE(msg.find("malformed YAML"), std::string::npos) << msg;
}

TEST(cluster_reader_test, json_type_error_names_pointer_and_form) {
  std::string msg = load_error(R"({"hosts": [{"name": "a", "memory": true}]})", "c.json");
  EXPECT_NE(msg.find("c.json (/hosts/0/memory)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("expected a size such as 512GiB"), std::string::npos) << msg;
}

TEST(cluster_reader_test, unknown_key_names_key_and_position) {
  std::string msg = load_error("hosts:\n  - name: a\n    memroy: 64GB\n");
  EXPECT_NE(msg.find("c.yaml:3:13 (/hosts/0/memroy)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("unknown key \"memroy\" (did you mean \"memory\"?)"), std::string::npos)
      << msg;
}

TEST(cluster_reader_test, negative_memory_is_rejected) {
  std::string msg = load_error("hosts:\n  - name: a\n    memory: -64GB\n");
  EXPECT_NE(msg.find("c.yaml:3:13 (/hosts/0/memory)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("not negative"), std::string::npos) << msg;
  msg = load_error(R"({"hosts": [{"name": "a", "memory": -5}]})", "c.json");
  EXPECT_NE(msg.find("(/hosts/0/memory)"), std::string::npos) << msg;
}

TEST(cluster_reader_test, unknown_chip_lists_known_chips) {
  std::string msg = load_error("hosts:\n  - name: a\n    chip: m9-ultra\n");
  EXPECT_NE(msg.find("c.yaml:3:11 (/hosts/0/chip)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("unknown chip \"m9-ultra\""), std::string::npos) << msg;
  EXPECT_NE(msg.find("m3-ultra-80c"), std::string::npos) << msg;
}

TEST(cluster_reader_test, a_near_miss_chip_or_machine_gets_the_nearest_names) {
  std::string msg = load_error("hosts:\n  - name: a\n    chip: m3-ultra\n");
  EXPECT_NE(msg.find("c.yaml:3:11 (/hosts/0/chip): unknown chip \"m3-ultra\" (did you mean"),
            std::string::npos)
      << msg;
  EXPECT_NE(msg.find("\"m3-ultra-80c\""), std::string::npos) << msg;
  EXPECT_EQ(msg.find("m1-7c"), std::string::npos) << "not the whole catalog: " << msg;
  msg = load_error("hosts:\n  - name: a\n    machine: mac-studio-m3ultra\n");
  EXPECT_NE(msg.find("unknown machine \"mac-studio-m3ultra\" (did you mean "
                     "\"mac-studio-m3-ultra\""),
            std::string::npos)
      << msg;
}

TEST(cluster_reader_test, cable_checks) {
  const std::string hosts =
      "hosts:\n  - {name: a, chip: m4-pro-20c}\n  - {name: b, chip: m4-pro-20c}\n  - {name: c, "
      "chip: m4-pro-20c}\n";
  EXPECT_NE(load_error(hosts + "links:\n  - {a: a, b: z, kind: tb5}\n").find("unknown host \"z\""),
            std::string::npos);
  EXPECT_NE(load_error(hosts + "links:\n  - {a: a:9, b: b, kind: tb5}\n")
                .find("has no Thunderbolt port \"9\""),
            std::string::npos);
  EXPECT_NE(load_error(hosts +
                       "links:\n  - {a: a:1, b: b:1, kind: tb5}\n  - {a: a:1, b: c:1, kind: tb5}\n")
                .find("port 1 of a is already used"),
            std::string::npos);
  EXPECT_NE(load_error(hosts + "links:\n  - {a: a, b: b, kind: tb4, rdma: true}\n")
                .find("rdma needs kind tb5"),
            std::string::npos);
  EXPECT_NE(
      load_error(hosts + "links:\n  - {a: a, b: b, kind: tb6}\n").find("unknown link kind \"tb6\""),
      std::string::npos);
}

TEST(cluster_reader_test, duplicate_and_invalid_host_names) {
  EXPECT_NE(load_error("hosts:\n  - {name: a}\n  - {name: a}\n").find("duplicate host name \"a\""),
            std::string::npos);
  EXPECT_NE(load_error("hosts:\n  - {name: \"-oProxy\"}\n").find("expected a host name"),
            std::string::npos);
  EXPECT_NE(load_error("hosts: []\n").find("at least one host"), std::string::npos);
}

TEST(cluster_reader_test, usable_memory_cannot_exceed_memory) {
  EXPECT_NE(load_error("hosts:\n  - {name: a, memory: 64GiB, usable_memory: 80GiB}\n")
                .find("exceeds memory"),
            std::string::npos);
}

TEST(cluster_reader_test, stage_overhead_overrides_the_vendor_default) {
  const std::string gpu = "hosts:\n  - name: g\n    gpus: [{chip: rtx-3090}]\n";
  Cluster c = load(gpu);
  EXPECT_DOUBLE_EQ(host_figures(c.hosts[0], Catalog::builtin()).overhead_s, 0.05e-3);
  c = load(gpu + "    stage_overhead_ms: 0.5\n");
  EXPECT_DOUBLE_EQ(host_figures(c.hosts[0], Catalog::builtin()).overhead_s, 0.5e-3);
  EXPECT_EQ(load(write_cluster_json(c), "c.json"), c);
  Cluster mac = load("hosts:\n  - {name: m, chip: m4-pro-20c, memory: 64GiB}\n");
  EXPECT_DOUBLE_EQ(host_figures(mac.hosts[0], Catalog::builtin()).overhead_s, 0.5e-3);
  EXPECT_NE(load_error(gpu + "    stage_overhead_ms: -1\n").find("from 0 to 1000, got -1"),
            std::string::npos);
}

TEST(cluster_reader_test, gpu_links_by_matrix_nvlink_count_or_fabric) {
  const std::string two =
      "hosts:\n  - name: g\n    memory: 256GiB\n    gpus: [{chip: h200}, {chip: h200}]\n";
  Cluster c = load(two + "    nvlink: 18\n");
  EXPECT_EQ(c.hosts[0].gpu_links,
            (std::vector<std::vector<std::string>>{{"X", "NV18"}, {"NV18", "X"}}));
  c = load(two + "    gpu_fabric: pcie\n");
  EXPECT_EQ(c.hosts[0].gpu_links[1][0], "PHB");
  c = load(two + "    gpu_links: [[X, NV4], [NV4, X]]\n");
  EXPECT_EQ(c.hosts[0].gpu_links[0][1], "NV4");
  // Written as the matrix, read back the same.
  EXPECT_EQ(load(write_cluster_json(c), "c.json"), c);

  EXPECT_NE(load_error(two + "    gpu_links: [[X, NV4]]\n").find("expected 2 rows"),
            std::string::npos);
  EXPECT_NE(load_error(two + "    gpu_links: [[X, FAST], [NV4, X]]\n").find("got \"FAST\""),
            std::string::npos);
  EXPECT_NE(load_error(two + "    gpu_links: [[NV4, NV4], [NV4, X]]\n").find("X on the diagonal"),
            std::string::npos);
  EXPECT_NE(load_error(two + "    gpu_fabric: infiniband\n").find("nvswitch or pcie"),
            std::string::npos);
  EXPECT_NE(load_error(two + "    nvlink: 18\n    gpu_fabric: pcie\n").find("give one of"),
            std::string::npos);
  EXPECT_NE(load_error("hosts:\n  - {name: g, memory: 64GiB, gpus: [{chip: h200}], nvlink: 18}\n")
                .find("at least 2"),
            std::string::npos);
}

// A node found through Slurm keeps its mark through writing and reading.
TEST(cluster_reader_test, slurm_nodes_round_trip) {
  Cluster c = load(R"(
hosts:
  - {name: gpu01, os: {kind: linux}, gpus: "8 x h100-sxm", memory: 1TiB, slurm: true}
  - {name: gpu02, os: {kind: linux}, gpus: "8 x h100-sxm", memory: 1TiB}
)");
  EXPECT_TRUE(c.hosts[0].slurm);
  EXPECT_FALSE(c.hosts[1].slurm);
  std::string json = write_cluster_json(c);
  EXPECT_NE(json.find("\"slurm\": true"), std::string::npos) << json;
  EXPECT_EQ(load(json, "c.json"), c);
  EXPECT_NE(
      load_error("hosts:\n  - {name: a, gpus: \"1 x h100-sxm\", memory: 80GiB, slurm: maybe}\n"),
      "no error");
}

TEST(cluster_reader_test, round_trip_read_write_read_gives_the_same_cluster) {
  for (const char* example :
       {"mac-studio-m3-ultra-x4.yaml", "studio-air-fabric.yaml", "ethernet-5-node.yaml",
        "thunderbolt4-star-3.yaml", "mac-mini-m4-pro-x4.yaml"}) {
    std::string path = testing::source_path(std::string("examples/clusters/") + example);
    Cluster first = load(testing::read_text(path), path);
    std::string json = write_cluster_json(first);
    Cluster second = load(json, "round-trip.json");
    EXPECT_EQ(first, second) << example;
    EXPECT_EQ(write_cluster_json(second), json) << example;
  }
}

TEST(cluster_reader_test, writer_key_order_is_stable) {
  Cluster c = load("hosts:\n  - {name: a, chip: m4-pro-20c, memory: 64GiB, ssh: admin@a.local}\n");
  std::string json = write_cluster_json(c);
  EXPECT_LT(json.find("\"schema\""), json.find("\"hosts\""));
  EXPECT_LT(json.find("\"name\": \"a\""), json.find("\"ssh\""));
  EXPECT_LT(json.find("\"ssh\""), json.find("\"chip\""));
  EXPECT_LT(json.find("\"chip\""), json.find("\"memory\""));
}

TEST(cluster_reader_test, ipv4_validation) {
  EXPECT_TRUE(valid_ipv4("192.168.0.1"));
  EXPECT_FALSE(valid_ipv4("192.168.0"));
  EXPECT_FALSE(valid_ipv4("192.168.0.256"));
  EXPECT_FALSE(valid_ipv4("a.b.c.d"));
  EXPECT_NE(load_error("hosts:\n  - name: a\n    interfaces: [{name: en0, ipv4: 10.0.0.300}]\n")
                .find("expected an IPv4 address"),
            std::string::npos);
}

constexpr const char* kSparks = R"(
hosts:
  - name: spark-1
    os: linux
    memory: 128GiB
    interfaces:
      - {name: enp1s0f0np0, kind: ethernet, speed_gbps: 200, mac: "aa:00:00:00:01:02", state: up, rdma_device: mlx5_0}
  - name: spark-2
    os: linux
    memory: 128GiB
    interfaces:
      - {name: enp1s0f0np0, kind: ethernet, state: down}
links:
)";

TEST(cluster_reader_test, a_direct_network_cable_by_interface_names) {
  Cluster c = load(std::string(kSparks) +
                   "  - {a: {host: spark-1, interface: enp1s0f0np0}, b: {host: spark-2, "
                   "interface: enp1s0f0np0}, kind: 100gbe, speed_gbps: 200, rdma: true}\n");
  ASSERT_EQ(c.cables.size(), 1u);
  EXPECT_EQ(c.cables[0].a, (Endpoint{"spark-1", "", "enp1s0f0np0"}));
  EXPECT_EQ(c.cables[0].b.interface, "enp1s0f0np0");
  EXPECT_TRUE(c.cables[0].rdma);
  const NetInterface& i = c.hosts[0].interfaces[0];
  EXPECT_EQ(i.mac, "aa:00:00:00:01:02");
  EXPECT_EQ(i.state, "up");
  EXPECT_EQ(i.rdma_device, "mlx5_0");
  EXPECT_EQ(c.hosts[1].interfaces[0].state, "down");
  // Written and read back, the same cluster.
  Cluster again = load(cluster_to_json(c).dump(), "c.json");
  EXPECT_EQ(again, c);

  EXPECT_NE(load_error(std::string(kSparks) +
                       "  - {a: {host: spark-1, interface: eth7}, b: {host: spark-2, interface: "
                       "enp1s0f0np0}, kind: 10gbe}\n")
                .find("host spark-1 has no interface \"eth7\"; its interfaces are enp1s0f0np0"),
            std::string::npos);
  // Below 10 GbE only a cable with an interface at both ends may record RDMA (as discovery does).
  EXPECT_NE(load_error(std::string(kSparks) +
                       "  - {a: {host: spark-1, interface: enp1s0f0np0}, b: spark-2, kind: 5gbe, "
                       "rdma: true}\n")
                .find("an interface at both ends; got 5gbe"),
            std::string::npos);
  EXPECT_EQ(load_error(std::string(kSparks) +
                       "  - {a: {host: spark-1, interface: enp1s0f0np0}, b: {host: spark-2, "
                       "interface: enp1s0f0np0}, kind: 1gbe, rdma: true}\n"),
            "no error");
}

constexpr const char* kGpuNodes = R"(
hosts:
  - name: gpu-1
    os: linux
    interfaces:
      - {name: ib0, kind: infiniband, ipv4: 10.9.0.1, prefix: 24, rdma_device: mlx5_0}
  - name: gpu-2
    os: linux
links:
)";

TEST(cluster_reader_test, roce_and_infiniband_networks_carry_rdma) {
  Cluster c = load(std::string(kGpuNodes) +
                   "  - {kind: 100gbe, rdma: true, hosts: all, subnet: 10.1.0.0/24}\n"
                   "  - {kind: ib-ndr, hosts: all}\n"
                   "  - {kind: ib-hdr, rdma: false, hosts: [gpu-1, gpu-2]}\n"
                   "  - {kind: 10gbe, hosts: all}\n"
                   "  - {a: {host: gpu-1, interface: ib0}, b: gpu-2, kind: ib-hdr}\n"
                   "  - {a: gpu-1, b: gpu-2, kind: 25gbe, rdma: true}\n");
  ASSERT_EQ(c.networks.size(), 4u);
  EXPECT_TRUE(c.networks[0].rdma);
  EXPECT_TRUE(c.networks[1].rdma) << "InfiniBand is RDMA unless it says otherwise";
  EXPECT_FALSE(c.networks[2].rdma);
  EXPECT_FALSE(c.networks[3].rdma);
  ASSERT_EQ(c.cables.size(), 2u);
  EXPECT_TRUE(c.cables[0].rdma);
  EXPECT_TRUE(c.cables[1].rdma);
  EXPECT_EQ(c.hosts[0].interfaces[0].kind, "infiniband");
  EXPECT_EQ(c.hosts[0].interfaces[0].rdma_device, "mlx5_0");
  // Written back only where it is not the default, and read back the same.
  std::string json = write_cluster_json(c);
  EXPECT_NE(json.find("\"kind\": \"infiniband\""), std::string::npos) << json;
  ojson links = cluster_to_json(c)["links"];
  EXPECT_EQ(links[2]["rdma"], true);
  EXPECT_FALSE(links[3].contains("rdma"));
  EXPECT_EQ(links[4]["rdma"], false);
  EXPECT_FALSE(links[5].contains("rdma"));
  Cluster again = load(json, "c.json");
  EXPECT_EQ(again, c);
  EXPECT_EQ(write_cluster_json(again), json);
}

TEST(cluster_reader_test, rdma_is_refused_where_no_rdma_nic_is_made) {
  std::string e = load_error(std::string(kGpuNodes) + "  - {kind: wifi, rdma: true, hosts: all}\n");
  EXPECT_NE(e.find("c.yaml:10:"), std::string::npos) << e;
  EXPECT_NE(e.find("rdma needs one of the kinds ib-ndr, ib-hdr, 400gbe, 200gbe, 100gbe, 25gbe, "
                   "10gbe; got wifi, which has no RDMA NICs (RoCE needs 10 GbE or faster)"),
            std::string::npos)
      << e;
  e = load_error(std::string(kGpuNodes) + "  - {a: gpu-1, b: gpu-2, kind: 1gbe, rdma: true}\n");
  EXPECT_NE(e.find("c.yaml:10:"), std::string::npos) << e;
  EXPECT_NE(e.find("rdma needs one of the kinds tb5, ib-ndr, ib-hdr, 400gbe, 200gbe, 100gbe, "
                   "25gbe, 10gbe or, for a direct network cable, an interface at both ends; got "
                   "1gbe"),
            std::string::npos)
      << e;
  // A network's rdma is a boolean like a cable's.
  e = load_error(std::string(kGpuNodes) + "  - {kind: 100gbe, rdma: roce, hosts: all}\n");
  EXPECT_NE(e.find("c.yaml:10:"), std::string::npos) << e;
}

TEST(cluster_reader_test, interface_kinds) {
  std::string e = load_error("hosts:\n  - name: a\n    interfaces: [{name: ib0, kind: ipoib}]\n");
  EXPECT_NE(e.find("expected interface kind ethernet, wifi, thunderbolt, bridge, infiniband or "
                   "other, got \"ipoib\""),
            std::string::npos)
      << e;
}

TEST(cluster_reader_test, an_interfaces_mtu_is_read_and_checked) {
  Cluster c = load_cluster("hosts:\n  - name: a\n    interfaces: [{name: eth0, mtu: 9000}]\n",
                           "c.yaml", Catalog::builtin());
  EXPECT_EQ(c.hosts[0].interfaces[0].mtu, 9000);
  std::string e = load_error("hosts:\n  - name: a\n    interfaces: [{name: eth0, mtu: 20}]\n");
  EXPECT_NE(e.find("c.yaml:3"), std::string::npos) << e;
  EXPECT_NE(e.find("expected an MTU in bytes from 68 to 1048576, got 20"), std::string::npos) << e;
}

TEST(cluster_reader_test, more_hosts_than_the_limit_are_refused_before_reading_them) {
  std::string json = "{\"hosts\": [";
  for (size_t i = 0; i <= kMaxClusterHosts; ++i)
    json += i ? ",{}" : "{}";
  json += "]}";
  std::string e = load_error(json, "big.json");
  EXPECT_NE(e.find("big.json"), std::string::npos) << e;
  EXPECT_NE(e.find("expected at most 250000 hosts, got 250001"), std::string::npos) << e;
}

}  // namespace
}  // namespace meshplan::cluster_reader_test

namespace meshplan::cluster_reader_test {
namespace {

constexpr const char* kMeasuredServing = R"(
hosts:
  - {name: gpu-1, chip: h100-sxm, memory: 80GiB}
  - {name: gpu-2, chip: h100-sxm, memory: 80GiB}
measured_serving:
  - date: 2026-11-27
    url: http://10.0.0.1:8080
    engine: llama-rpc
    model: llama-3.3-70b-4bit
    hosts: [gpu-1, gpu-2]
    concurrency: 4
    ttft_ms: 180.5
    stream_tps: 22.1
    total_tps: 84
)";

TEST(cluster_reader_test, measured_serving_is_read_and_written_back) {
  Cluster c = load(kMeasuredServing);
  ASSERT_EQ(c.measured_serving.size(), 1u);
  const MeasuredServing& m = c.measured_serving[0];
  EXPECT_EQ(m.date, "2026-11-27");
  EXPECT_EQ(m.url, "http://10.0.0.1:8080");
  EXPECT_EQ(m.engine, "llama-rpc");
  EXPECT_EQ(m.model, "llama-3.3-70b-4bit");
  EXPECT_EQ(m.hosts, (std::vector<std::string>{"gpu-1", "gpu-2"}));
  EXPECT_EQ(m.concurrency, 4);
  EXPECT_DOUBLE_EQ(m.ttft_ms, 180.5);
  EXPECT_DOUBLE_EQ(m.stream_tps, 22.1);
  EXPECT_DOUBLE_EQ(m.total_tps, 84);
  // Written as JSON and read again: the same cluster, entries included.
  EXPECT_EQ(load(write_cluster_json(c), "c.json"), c);
}

TEST(cluster_reader_test, measured_serving_errors_name_position_and_form) {
  std::string text = kMeasuredServing;
  auto with = [&](const std::string& from, const std::string& to) {
    std::string t = text;
    t.replace(t.find(from), from.size(), to);
    return load_error(t);
  };
  EXPECT_NE(with("concurrency: 4", "concurrency: 0")
                .find("c.yaml:11:18 (/measured_serving/0/concurrency)"),
            std::string::npos)
      << with("concurrency: 4", "concurrency: 0");
  EXPECT_NE(with("concurrency: 4", "concurrency: 0").find("expected the requests in flight"),
            std::string::npos);
  EXPECT_NE(with("stream_tps: 22.1", "stream_tps: fast").find("stream_tps"), std::string::npos);
  EXPECT_NE(
      with("hosts: [gpu-1, gpu-2]\n", "hosts: []\n").find("expected a list of the plan's host"),
      std::string::npos);
  EXPECT_NE(with("date: 2026-11-27", "date: yesterday").find("measured_serving/0/date"),
            std::string::npos)
      << with("date: 2026-11-27", "date: yesterday");
  EXPECT_NE(with("ttft_ms: 180.5", "ttfb_ms: 180.5").find("ttfb_ms"), std::string::npos);
}

}  // namespace
}  // namespace meshplan::cluster_reader_test
