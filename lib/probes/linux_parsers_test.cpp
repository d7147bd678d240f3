#include "lib/probes/linux_parsers.hpp"

#include <gtest/gtest.h>

#include "lib/probes/probe_set.hpp"
#include "tests/test_support.hpp"

namespace meshplan::linux_parsers_test {
namespace {

using testing::fixture_path;
using testing::read_text;

TEST(linux_parsers_test, meminfo_total_in_bytes) {
  EXPECT_EQ(parse_meminfo_total(
                read_text(fixture_path("linux/proc_meminfo_debian12_firecracker_24GiB.txt"))),
            24684096ull * 1024);
  EXPECT_EQ(parse_meminfo_total(
                read_text(fixture_path("linux/device_meminfo_and_torch_nccl_versions_h100.txt"))),
            131981020ull * 1024);
  EXPECT_THROW(parse_meminfo_total("MemFree: 1 kB\n"), ProbeParseError);
}

TEST(linux_parsers_test, nvidia_smi_with_header_and_units) {
  auto h100 = parse_nvidia_smi(read_text(fixture_path("linux/nvidia-smi_query-gpu_h100x1.csv")));
  ASSERT_EQ(h100.size(), 1u);
  EXPECT_EQ(h100[0].name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(h100[0].uuid, "GPU-04a2c780-8426-ca9f-b43c-94b90bee3159");
  EXPECT_EQ(h100[0].pci_bus, "00000000:00:06.0");
  EXPECT_EQ(h100[0].memory, 81559ull * 1024 * 1024);

  auto h200 = parse_nvidia_smi(read_text(fixture_path("linux/nvidia-smi_query-gpu_h200x2.csv")));
  ASSERT_EQ(h200.size(), 2u);
  EXPECT_EQ(h200[1].index, 1);
  EXPECT_EQ(h200[1].pci_bus, "00000000:00:07.0");
  EXPECT_EQ(h200[1].memory, 143771ull * 1024 * 1024);
}

TEST(linux_parsers_test, nvidia_smi_without_header_or_units) {
  // This capture asked for index,name,memory.total,pci.bus_id.
  auto g = parse_nvidia_smi(
      read_text(fixture_path("linux/nvidia-smi_query-gpu_noheader_nounits_h100x1.csv")),
      {"index", "name", "memory.total", "pci.bus_id"});
  ASSERT_EQ(g.size(), 1u);
  EXPECT_EQ(g[0].memory, 81559ull * 1024 * 1024);
  EXPECT_EQ(g[0].pci_bus, "00000000:00:06.0");
  // Discovery's own query order.
  auto own = parse_nvidia_smi(
      "0, NVIDIA H200, GPU-11111111-2222-3333-4444-555555555555, 00000000:00:06.0, 143771\n");
  ASSERT_EQ(own.size(), 1u);
  EXPECT_EQ(own[0].uuid, "GPU-11111111-2222-3333-4444-555555555555");
  EXPECT_EQ(own[0].memory, 143771ull * 1024 * 1024);
  EXPECT_TRUE(parse_nvidia_smi("").empty());
  EXPECT_THROW(
      parse_nvidia_smi(
          "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.\n"),
      ProbeParseError);
}

TEST(linux_parsers_test, ip_addr_json_compact_and_pretty) {
  for (const char* file :
       {"linux/ip-j_addr_netns_veth.json", "linux/ip-j-p_addr_netns_veth.pretty.json"}) {
    auto ifs = parse_ip_addr(read_text(fixture_path(file)));
    ASSERT_EQ(ifs.size(), 5u) << file;
    EXPECT_EQ(ifs[0].name, "lo");
    EXPECT_EQ(ifs[0].link_type, "loopback");
    EXPECT_EQ(ifs[1].name, "eth1");
    EXPECT_EQ(ifs[1].ipv4, "");  // IPv6 only
    EXPECT_EQ(ifs[2].name, "eth0");
    EXPECT_EQ(ifs[2].ipv4, "10.10.0.1");
    EXPECT_EQ(ifs[2].prefix, 24);
    EXPECT_TRUE(ifs[2].up);
    EXPECT_EQ(ifs[0].mtu, 65536);
    EXPECT_EQ(ifs[2].mtu, 1500);
    EXPECT_EQ(ifs[4].name, "ens1f0np0");
    EXPECT_EQ(ifs[4].ipv4, "192.168.100.1");
    EXPECT_EQ(ifs[4].prefix, 30);
  }
  EXPECT_THROW(parse_ip_addr(read_text(fixture_path("linux/ip_addr_netns_veth.txt"))),
               ProbeParseError);
  // `ip -j link` has the same entries without addresses.
  auto links = parse_ip_addr(read_text(fixture_path("linux/ip-j_link_netns_veth.json")));
  ASSERT_EQ(links.size(), 5u);
  for (const auto& l : links)
    EXPECT_EQ(l.ipv4, "") << l.name;
  EXPECT_THROW(parse_ip_addr("{}"), ProbeParseError);
}

TEST(linux_parsers_test, os_release) {
  OsRelease r = parse_os_release(
      "PRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\nID=debian\nVERSION_ID=\"12\"\n");
  EXPECT_EQ(r.id, "debian");
  EXPECT_EQ(r.version_id, "12");
  EXPECT_EQ(r.pretty_name, "Debian GNU/Linux 12 (bookworm)");
}

// Read in a network namespace: eth1 cabled and up, eth2 down (the kernel refuses its speed),
// eth3 up but its peer down.
constexpr const char* kSysNet =
    "eth1|06:bb:04:27:76:6a|up|10000\n"
    "eth2|9e:f2:65:13:ef:3a|down|\n"
    "eth3|72:A4:03:44:20:5B|lowerlayerdown|10000\n"
    "lo|00:00:00:00:00:00|down|\n";

TEST(linux_parsers_test, sys_net_reading_with_a_down_interface) {
  auto ifs = parse_sys_net(kSysNet);
  ASSERT_EQ(ifs.size(), 4u);
  EXPECT_EQ(ifs[0].name, "eth1");
  EXPECT_EQ(ifs[0].mac, "06:bb:04:27:76:6a");
  EXPECT_EQ(ifs[0].operstate, "up");
  EXPECT_EQ(ifs[0].speed_mbps, 10000);
  EXPECT_EQ(ifs[1].name, "eth2");
  EXPECT_EQ(ifs[1].operstate, "down");
  EXPECT_EQ(ifs[1].speed_mbps, 0);             // unreadable on a down link
  EXPECT_EQ(ifs[2].mac, "72:a4:03:44:20:5b");  // lower case, as ip -j prints it
  EXPECT_EQ(ifs[2].operstate, "lowerlayerdown");
  EXPECT_EQ(ifs[3].name, "lo");
  // A NIC that does not know its speed reports -1.
  EXPECT_EQ(parse_sys_net("enp1s0|aa:bb:cc:dd:ee:ff|up|-1\n")[0].speed_mbps, 0);
  EXPECT_THROW(parse_sys_net("eth0 up 1000\n"), ProbeParseError);
  EXPECT_THROW(parse_sys_net("eth0|aa:bb:cc:dd:ee:ff|up|fast\n"), ProbeParseError);
}

TEST(linux_parsers_test, rdma_net_names_device_and_interface) {
  auto r = parse_rdma_net("mlx5_0 enp1s0f0np0\nmlx5_1 enp1s0f1np1\n\n");
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].device, "mlx5_0");
  EXPECT_EQ(r[0].interface, "enp1s0f0np0");
  EXPECT_EQ(r[1].interface, "enp1s0f1np1");
  EXPECT_TRUE(parse_rdma_net("").empty());
  EXPECT_THROW(parse_rdma_net("mlx5_0\n"), ProbeParseError);
}

TEST(linux_parsers_test, rdma_rates_take_each_devices_fastest_port) {
  auto r = parse_rdma_rates(
      "mlx5_0 400 Gb/sec (4X NDR)\nmlx5_1 200 Gb/sec (4X HDR)\nmlx5_1 100 Gb/sec (2X HDR)\n"
      "rocep1s0 25 Gb/sec (1X EDR)\n\n");
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[0].device, "mlx5_0");
  EXPECT_DOUBLE_EQ(r[0].gbps, 400);
  EXPECT_DOUBLE_EQ(r[1].gbps, 200);
  EXPECT_DOUBLE_EQ(r[2].gbps, 25);
  EXPECT_TRUE(parse_rdma_rates("").empty());
  EXPECT_THROW(parse_rdma_rates("mlx5_0\n"), ProbeParseError);
  EXPECT_THROW(parse_rdma_rates("mlx5_0 fast Gb/sec\n"), ProbeParseError);
  EXPECT_THROW(parse_rdma_rates("mlx5_0 400 MB/s\n"), ProbeParseError);
}

TEST(linux_parsers_test, ip_neigh_json) {
  auto n = parse_ip_neigh(
      R"([{"dst":"fe80::10f5:d7ff:fe3b:69cb","dev":"eth1","lladdr":"12:f5:d7:3b:69:cb","state":["DELAY"]},)"
      R"({"dst":"fe80::1","dev":"eth2","state":["FAILED"]},)"
      R"({"dst":"fe80::2","dev":"eth3","lladdr":"AA:BB:CC:DD:EE:01","router":null,"state":["STALE"]}])");
  ASSERT_EQ(n.size(), 2u);  // the FAILED entry has no link-layer address
  EXPECT_EQ(n[0].interface, "eth1");
  EXPECT_EQ(n[0].mac, "12:f5:d7:3b:69:cb");
  EXPECT_EQ(n[0].address, "fe80::10f5:d7ff:fe3b:69cb");
  EXPECT_EQ(n[1].mac, "aa:bb:cc:dd:ee:01");
  EXPECT_TRUE(parse_ip_neigh("[]").empty());
  EXPECT_TRUE(parse_ip_neigh("").empty());
  EXPECT_THROW(parse_ip_neigh("fe80::1 dev eth1 lladdr 12:f5:d7:3b:69:cb DELAY"), ProbeParseError);
}

TEST(linux_parsers_test, ip_addr_records_the_mac_and_a_down_state) {
  auto ifs = parse_ip_addr(read_text(fixture_path("linux/ip-j_addr_netns_veth.json")));
  EXPECT_EQ(ifs[0].mac, "");  // loopback
  EXPECT_EQ(ifs[1].mac, "2a:a0:f7:1b:8b:90");
  auto down = parse_ip_addr(
      R"([{"ifindex":3,"ifname":"eth2","flags":["BROADCAST","MULTICAST"],"operstate":"DOWN",)"
      R"("link_type":"ether","address":"9e:f2:65:13:ef:3a","addr_info":[]}])");
  ASSERT_EQ(down.size(), 1u);
  EXPECT_FALSE(down[0].up);
  EXPECT_EQ(down[0].operstate, "DOWN");
  EXPECT_EQ(down[0].mac, "9e:f2:65:13:ef:3a");
}

}  // namespace
}  // namespace meshplan::linux_parsers_test
