#include "lib/discovery/host_builder.hpp"

#include <gtest/gtest.h>

#include "lib/cluster/cluster_writer.hpp"
#include "lib/core/file_system.hpp"
#include "lib/probes/replay_folder.hpp"
#include "tests/test_support.hpp"

namespace meshplan::host_builder_test {
namespace {

using testing::fixture_path;
using testing::read_text;
using testing::source_path;

constexpr uint64_t kGiB = 1024ull * 1024 * 1024;

ProbeSet mesh4(const std::string& host) {
  RealFileSystem fs;
  return read_replay_probes(fs, source_path("tests/replays/mesh4"), host);
}

BuiltHost build(const std::string& name, const ProbeSet& s) {
  return build_host(HostTarget{name, "", name, 0}, s, Catalog::builtin());
}

bool has_finding(const BuiltHost& b, const std::string& kind, const std::string& text = "") {
  for (const auto& f : b.findings) {
    if (f.kind == kind && f.message.find(text) != std::string::npos) return true;
  }
  return false;
}

TEST(host_builder_test, complete_mac_studio) {
  BuiltHost b = build("m3-ultra-3", mesh4("m3-ultra-3"));
  ASSERT_EQ(b.failure, HostFailureKind::kNone) << b.failure_message;
  const Host& h = b.host;
  EXPECT_EQ(h.os, (OsInfo{"macos", "26.2", "25C56"}));
  EXPECT_EQ(h.chip, "m3-ultra-80c");
  EXPECT_EQ(h.machine, "mac-studio-m3-ultra");
  EXPECT_EQ(h.hw_model, "Mac15,14");
  EXPECT_EQ(h.gpu_cores, 80);
  EXPECT_EQ(h.memory, 256 * kGiB);
  EXPECT_EQ(h.wired_limit_mb, 235520);
  EXPECT_EQ(h.usable_memory, 235520ull * 1024 * 1024) << "the wired limit is what Metal may use";
  EXPECT_EQ(h.rdma_enabled, true);
  ASSERT_TRUE(h.thunderbolt_bridge.has_value());
  EXPECT_FALSE(h.thunderbolt_bridge->up);
  ASSERT_EQ(h.ports.size(), 6u);
  EXPECT_EQ(h.ports[0].interface, "en2");
  EXPECT_EQ(h.ports[0].rdma_device, "rdma_en2");
  EXPECT_EQ(h.ports[0].rdma_state, "PORT_ACTIVE");
  EXPECT_EQ(h.ports[5].rdma_state, "PORT_DOWN");
  EXPECT_EQ(h.ports[5].generation, 5);
  EXPECT_DOUBLE_EQ(h.ports[0].speed_gbps, 80);
  EXPECT_DOUBLE_EQ(h.ports[5].speed_gbps, 0);
  const NetInterface* en0 = h.find_interface("en0");
  ASSERT_NE(en0, nullptr);
  EXPECT_EQ(en0->kind, "ethernet");
  EXPECT_EQ(en0->ipv4, "10.0.0.3");
  EXPECT_EQ(en0->prefix, 24);
  EXPECT_DOUBLE_EQ(en0->speed_gbps, 10);
  EXPECT_EQ(h.find_interface("en4")->kind, "thunderbolt");
  EXPECT_TRUE(b.findings.empty());
}

TEST(host_builder_test, default_usable_memory_bridge_and_gpu_bin) {
  BuiltHost two = build("m3-ultra-2", mesh4("m3-ultra-2"));
  ASSERT_TRUE(two.host.thunderbolt_bridge.has_value());
  EXPECT_TRUE(two.host.thunderbolt_bridge->up);
  EXPECT_EQ(two.host.thunderbolt_bridge->members, (std::vector<std::string>{"en5", "en6", "en7"}));
  // 512 GiB - max(6 GiB, 15 %)
  EXPECT_EQ(two.host.usable_memory, static_cast<uint64_t>(512.0 * kGiB * 0.85));
  BuiltHost four = build("m3-ultra-4", mesh4("m3-ultra-4"));
  EXPECT_EQ(four.host.chip, "m3-ultra-60c");
}

TEST(host_builder_test, essential_probe_failures_fail_the_host) {
  ProbeSet s = mesh4("m3-ultra-1");
  s.probes["networksetup"] = {ProbeStatus::kMissing, 127, "", "sh: networksetup: not found\n"};
  BuiltHost b = build("m", s);
  EXPECT_EQ(b.failure, HostFailureKind::kCommandMissing);
  EXPECT_NE(b.failure_message.find("networksetup -listallhardwareports"), std::string::npos)
      << b.failure_message;

  s = mesh4("m3-ultra-1");
  s.probes["system_profiler"].out = "garbage";
  b = build("m", s);
  EXPECT_EQ(b.failure, HostFailureKind::kOutputNotUnderstood);
  EXPECT_NE(b.failure_message.find("not JSON"), std::string::npos) << b.failure_message;

  s = mesh4("m3-ultra-1");
  s.probes["sysctl"] = {ProbeStatus::kFailed, 1, "", "sysctl: permission denied\n"};
  b = build("m", s);
  EXPECT_EQ(b.failure, HostFailureKind::kCommandFailed);
  EXPECT_NE(b.failure_message.find("exited with status 1: sysctl: permission denied"),
            std::string::npos)
      << b.failure_message;

  s = mesh4("m3-ultra-1");
  s.probes["uname"].out = "FreeBSD\n";
  b = build("m", s);
  EXPECT_EQ(b.failure, HostFailureKind::kOutputNotUnderstood);
  EXPECT_NE(b.failure_message.find("FreeBSD"), std::string::npos);
}

TEST(host_builder_test, other_probe_failures_only_degrade_the_host) {
  ProbeSet s = mesh4("m3-ultra-1");
  s.probes["sw_vers"] = {ProbeStatus::kFailed, 1, "", "sw_vers: broken\n"};
  s.probes["ifconfig"].out = "garbage";
  s.probes["ibv_devices"] = {ProbeStatus::kMissing, 127, "", ""};  // macOS before 26.2
  s.probes["en1_ip"] = {ProbeStatus::kFailed, 1, "", ""};          // no address on en1
  BuiltHost b = build("m", s);
  ASSERT_EQ(b.failure, HostFailureKind::kNone) << b.failure_message;
  EXPECT_TRUE(has_finding(b, "probe-failed",
                          "command failed: `sw_vers`: exited with status 1: sw_vers: broken"));
  EXPECT_TRUE(has_finding(b, "probe-failed", "output not understood: `ifconfig`"));
  EXPECT_EQ(b.findings.size(), 2u);
  EXPECT_EQ(b.host.rdma_enabled, false);
  EXPECT_EQ(b.host.ports[0].rdma_device, "");
  EXPECT_FALSE(b.host.thunderbolt_bridge.has_value());
  EXPECT_EQ(b.host.find_interface("en0")->ipv4, "10.0.0.1")
      << "ipconfig getifaddr still gives the address";
  EXPECT_EQ(b.host.find_interface("en0")->prefix, 0);
}

TEST(host_builder_test, header_only_ibv_devices_means_no_rdma) {
  ProbeSet s = mesh4("m3-ultra-1");
  s.probes["ibv_devices"].out = "device              node GUID\n------          ----------------\n";
  BuiltHost b = build("m", s);
  ASSERT_EQ(b.failure, HostFailureKind::kNone);
  EXPECT_EQ(b.host.rdma_enabled, false);
  for (const auto& p : b.host.ports)
    EXPECT_EQ(p.rdma_device, "") << p.id;
}

TEST(host_builder_test, macs_the_catalog_does_not_know) {
  ProbeSet vm;
  vm.probes["uname"].out = "Darwin\n";
  vm.probes["sysctl"].out =
      read_text(fixture_path("macos/sysctl_GitHubRunner_macos26_M1_Virtual.txt"));
  vm.probes["hardware"].out =
      read_text(fixture_path("macos/SPHardwareDataType_GitHubRunner_macos26_M1_Virtual.json"));
  BuiltHost b = build("runner", vm);
  ASSERT_EQ(b.failure, HostFailureKind::kNone);
  EXPECT_EQ(b.host.memory, 7516192768u);
  EXPECT_EQ(b.host.chip, "");
  EXPECT_TRUE(has_finding(b, "unknown-chip", "Apple M1 (Virtual)"));

  ProbeSet m5;
  m5.probes["hardware"].out =
      read_text(fixture_path("macos/SPHardwareDataType_M5Max_MacBookPro_Mac17-6.json"));
  b = build("m5", m5);
  EXPECT_EQ(b.host.os.kind, "macos") << "no uname: a macOS probe says macOS";
  EXPECT_EQ(b.host.memory, 128 * kGiB);
  EXPECT_EQ(b.host.chip, "m5-max-40c") << "M5 Max without a GPU core count: the largest bin";
  EXPECT_EQ(b.host.machine, "macbook-pro-m5-max");
  EXPECT_FALSE(has_finding(b, "unknown-chip", "Apple M5 Max"));

  ProbeSet ultra;  // a chip announced after this catalog: the nearest names are suggested
  std::string hardware =
      read_text(fixture_path("macos/SPHardwareDataType_M5Max_MacBookPro_Mac17-6.json"));
  hardware.replace(hardware.find("Apple M5 Max"), 12, "Apple M5 Ultra");
  ultra.probes["hardware"].out = hardware;
  b = build("next", ultra);
  EXPECT_EQ(b.host.chip, "");
  EXPECT_TRUE(has_finding(b, "unknown-chip",
                          "\"Apple M5 Ultra\" is not in the chip catalog (did you mean"));
  EXPECT_TRUE(has_finding(b, "unknown-chip", "\"Apple M3 Ultra\"?)"));

  ProbeSet rosetta;  // chip_type missing under Rosetta: the sysctl brand names the chip
  rosetta.probes["hardware"].out =
      read_text(fixture_path("macos/SPHardwareDataType_M1_MacBookAir10-1_under_Rosetta.json"));
  rosetta.probes["sysctl"].out =
      "hw.memsize: 17179869184\nhw.model: MacBookAir10,1\nmachdep.cpu.brand_string: Apple M1\n";
  b = build("air", rosetta);
  EXPECT_EQ(b.host.chip, "m1-8c") << "no GPU core count: the largest bin";
  EXPECT_EQ(b.host.machine, "macbook-air-m1");
}

TEST(host_builder_test, linux_gpu_host) {
  ProbeSet s;
  s.probes["uname"].out = "Linux\n";
  s.probes["meminfo"].out =
      read_text(fixture_path("linux/device_meminfo_and_torch_nccl_versions_h100.txt"));
  s.probes["nvidia_smi"].out = read_text(fixture_path("linux/nvidia-smi_query-gpu_h100x1.csv"));
  s.probes["ip_addr"].out = read_text(fixture_path("linux/ip-j_addr_netns_veth.json"));
  s.probes["ibv_devinfo"] = {ProbeStatus::kFailed, 255, "",
                             "Failed to get IB devices list: Function not implemented\n"};
  s.probes["os_release"].out = "ID=debian\nVERSION_ID=\"12\"\n";
  BuiltHost b = build("gpu-1", s);
  ASSERT_EQ(b.failure, HostFailureKind::kNone) << b.failure_message;
  const Host& h = b.host;
  EXPECT_EQ(h.os, (OsInfo{"linux", "debian 12", ""}));
  EXPECT_EQ(h.memory, 131981020ull * 1024);
  ASSERT_EQ(h.gpus.size(), 1u);
  EXPECT_EQ(h.gpus[0].chip, "h100-sxm");
  EXPECT_EQ(h.gpus[0].memory, 81559ull * 1024 * 1024);
  EXPECT_EQ(h.rdma_enabled, false);
  EXPECT_EQ(h.find_interface("lo"), nullptr);
  ASSERT_NE(h.find_interface("eth0"), nullptr);
  EXPECT_EQ(h.find_interface("eth0")->kind, "ethernet");
  EXPECT_EQ(h.find_interface("eth0")->ipv4, "10.10.0.1");
  EXPECT_TRUE(b.findings.empty());

  s.probes["nvidia_smi"] = {ProbeStatus::kMissing, 127, "", ""};  // no NVIDIA GPU
  s.probes["meminfo"].out = "nothing\n";
  b = build("cpu-1", s);
  EXPECT_EQ(b.failure, HostFailureKind::kOutputNotUnderstood);
}

TEST(host_builder_test, two_gpu_host_records_its_nvlinks) {
  ProbeSet s;
  s.probes["uname"].out = "Linux\n";
  s.probes["meminfo"].out =
      read_text(fixture_path("linux/device_meminfo_and_torch_nccl_versions_h100.txt"));
  s.probes["nvidia_smi"].out = read_text(fixture_path("linux/nvidia-smi_query-gpu_h200x2.csv"));
  s.probes["nvidia_topo"].out = read_text(fixture_path("linux/nvidia-smi_topo-m_h200x2.txt"));
  BuiltHost b = build("h200", s);
  ASSERT_EQ(b.failure, HostFailureKind::kNone) << b.failure_message;
  ASSERT_EQ(b.host.gpus.size(), 2u);
  EXPECT_EQ(b.host.gpu_links,
            (std::vector<std::vector<std::string>>{{"X", "NV18"}, {"NV18", "X"}}));
  EXPECT_EQ(b.host.gpus[1].nvlinks, 0);  // no nvlink -s probe: not known
  // nvidia-smi nvlink -s, measured on the same pair: all 18 links up at 26.562 GB/s.
  s.probes["nvidia_nvlink"].out = read_text(fixture_path("linux/nvidia-smi_nvlink-s_h200x2.txt"));
  b = build("h200", s);
  EXPECT_EQ(b.host.gpus[1].nvlinks, 18);
  EXPECT_DOUBLE_EQ(b.host.gpus[1].nvlink_GBps, 26.562);
  EXPECT_TRUE(b.findings.empty());
  // Links down are recorded as what is left, and said.
  std::string down = "GPU 0: NVIDIA H200 (UUID: GPU-a)\n";
  for (int l = 0; l < 18; ++l)
    down += "\t Link " + std::to_string(l) + ": 26.562 GB/s\n";
  down += "GPU 1: NVIDIA H200 (UUID: GPU-b)\n";
  for (int l = 0; l < 18; ++l)
    down += "\t Link " + std::to_string(l) + (l < 10 ? ": 26.562 GB/s\n" : ": <inactive>\n");
  s.probes["nvidia_nvlink"].out = down;
  b = build("h200", s);
  EXPECT_EQ(b.host.gpus[0].nvlinks, 18);
  EXPECT_EQ(b.host.gpus[1].nvlinks, 10);
  ASSERT_EQ(b.findings.size(), 1u);
  EXPECT_EQ(b.findings[0].kind, "nvlink-down");
  EXPECT_NE(b.findings[0].message.find("gpu1 has 8 of its 18 NVLinks down"), std::string::npos)
      << b.findings[0].message;
  s.probes.erase("nvidia_nvlink");
  // A matrix for other GPUs than nvidia-smi listed is not recorded.
  s.probes["nvidia_topo"].out = read_text(
      fixture_path("linux/nvidia-smi_topo-m_HGX-H100x8_10NIC_EXCERPT_nccl-issue1264.txt"));
  EXPECT_TRUE(build("h200", s).host.gpu_links.empty());
  // Output that is not the matrix is reported, the host kept.
  s.probes["nvidia_topo"].out = "NVIDIA-SMI has failed\n";
  b = build("h200", s);
  EXPECT_EQ(b.failure, HostFailureKind::kNone);
  EXPECT_FALSE(b.findings.empty());
}

TEST(host_builder_test, an_hgx_host_records_each_gpus_nic_and_the_nics_rates) {
  ProbeSet s;
  s.probes["uname"].out = "Linux\n";
  s.probes["meminfo"].out =
      read_text(fixture_path("linux/device_meminfo_and_torch_nccl_versions_h100.txt"));
  std::string csv = "index, name, pci.bus_id, memory.total [MiB], driver_version\n";
  for (int g = 0; g < 8; ++g)
    csv += std::to_string(g) + ", NVIDIA H100 80GB HBM3, 00000000:0" + std::to_string(g) +
           ":00.0, 81559 MiB, 580.159.04\n";
  s.probes["nvidia_smi"].out = csv;
  s.probes["nvidia_topo"].out = read_text(
      fixture_path("linux/nvidia-smi_topo-m_HGX-H100x8_10NIC_EXCERPT_nccl-issue1264.txt"));
  s.probes["ip_addr"].out =
      R"([{"ifname":"ib0","link_type":"infiniband","operstate":"UP","address":"00:00:10:49:fe:80",)"
      R"("addr_info":[{"family":"inet","local":"10.9.0.1","prefixlen":24}]}])";
  s.probes["rdma_net"].out = "mlx5_0 ib0\n";
  s.probes["rdma_rate"].out = "mlx5_0 400 Gb/sec (4X NDR)\nmlx5_1 400 Gb/sec (4X NDR)\n";
  BuiltHost b = build("hgx", s);
  ASSERT_EQ(b.failure, HostFailureKind::kNone) << b.failure_message;
  ASSERT_EQ(b.host.gpus.size(), 8u);
  EXPECT_EQ(b.host.gpu_links[0][7], "NV18");
  // Each GPU's PIX neighbour in the matrix; GPU3 skips NIC3 and NIC4 for NIC5.
  EXPECT_EQ(b.host.gpus[0].nic, "NIC0");
  EXPECT_EQ(b.host.gpus[3].nic, "NIC5");
  EXPECT_EQ(b.host.gpus[7].nic, "NIC9");
  ASSERT_EQ(b.host.interfaces.size(), 1u);
  EXPECT_EQ(b.host.interfaces[0].kind, "infiniband") << "IPoIB: link_type infiniband";
  EXPECT_EQ(b.host.interfaces[0].rdma_device, "mlx5_0");
  EXPECT_DOUBLE_EQ(b.host.interfaces[0].speed_gbps, 400);
  // What discovery found survives the cluster file.
  Cluster c;
  c.hosts.push_back(b.host);
  EXPECT_NE(write_cluster_json(c).find("\"nic\": \"NIC5\""), std::string::npos);
}

TEST(host_builder_test, gpus_by_their_reported_names_and_the_nearest_for_unknown_ones) {
  ProbeSet s;
  s.probes["uname"].out = "Linux\n";
  s.probes["meminfo"].out =
      read_text(fixture_path("linux/device_meminfo_and_torch_nccl_versions_h100.txt"));
  s.probes["nvidia_smi"].out =
      "0, NVIDIA A100 80GB PCIe, GPU-1, 00000000:17:00.0, 81920\n"
      "1, NVIDIA RTX PRO 6000 Blackwell Server Edition, GPU-2, 00000000:18:00.0, 97887\n";
  BuiltHost b = build("mixed", s);
  ASSERT_EQ(b.failure, HostFailureKind::kNone) << b.failure_message;
  ASSERT_EQ(b.host.gpus.size(), 2u);
  EXPECT_EQ(b.host.gpus[0].chip, "a100-80gb") << "the PCIe name of the part";
  EXPECT_EQ(b.host.gpus[1].chip, "rtx-pro-6000");
  EXPECT_TRUE(b.findings.empty());

  s.probes["nvidia_smi"].out =
      "0, NVIDIA H100 NVL, GPU-1, 00000000:17:00.0, 95830\n"
      "1, NVIDIA H100 NVL, GPU-2, 00000000:18:00.0, 95830\n";
  b = build("nvl", s);
  EXPECT_EQ(b.host.gpus[0].chip, "");
  ASSERT_EQ(b.findings.size(), 1u) << "one finding for two GPUs of one kind";
  EXPECT_TRUE(has_finding(b, "unknown-chip", "GPU \"NVIDIA H100 NVL\""));
  EXPECT_TRUE(has_finding(b, "unknown-chip", "did you mean \"NVIDIA H100 PCIe\""));
}

}  // namespace
}  // namespace meshplan::host_builder_test
