#include "lib/discovery/linux_parsers.hpp"

#include <gtest/gtest.h>

#include "lib/discovery/probe_set.hpp"
#include "tests/test_support.hpp"

namespace meshplan {
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

}  // namespace
}  // namespace meshplan
