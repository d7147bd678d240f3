// The lines a Linux host of an engine's launch prints after its interfaces, read back.
#include "deploy/configure/linux_launch_facts.hpp"

#include <gtest/gtest.h>

#include "deploy/configure/host_state.hpp"
#include "deploy/configure/live_check.hpp"

namespace meshplan::linux_launch_facts_test {
namespace {

const char* kIbv = R"(hca_id:	mlx5_0
	transport:			InfiniBand (0)
	fw_ver:				28.39.1002
	phys_port_cnt:			1
		port:	1
			state:			PORT_ACTIVE (4)
			link_layer:		InfiniBand

hca_id:	mlx5_1
	phys_port_cnt:			1
		port:	1
			state:			PORT_DOWN (1)
			link_layer:		InfiniBand
)";

TEST(linux_launch_facts_test, port_range_gpus_hcas_and_versions_are_read) {
  std::string out = std::string(
                        "@@ip\n[]\n@@portrange 32768\t60999\n@@gpus\n"
                        "NVIDIA H100 80GB HBM3, 81559 MiB\n"
                        "NVIDIA H100 80GB HBM3, 81559 MiB\n@@ibv\n") +
                    kIbv +
                    "@@v_python 3.11.2\n@@v_torch 2.5.1+cu124\n@@v_cuda 12.4\n@@v_nccl 2.21.5\n"
                    "@@v_vllm 0.6.4\n@@end\n";
  LinuxLaunchFacts f = parse_linux_launch_facts(script_sections(out));
  ASSERT_TRUE(f.port_range.has_value());
  EXPECT_EQ(*f.port_range, (std::pair{32768, 60999}));
  EXPECT_TRUE(f.nvidia_smi);
  ASSERT_EQ(f.gpus.size(), 2u);
  EXPECT_EQ(f.gpus[0].name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(f.gpus[0].memory_mib, 81559u);
  EXPECT_TRUE(f.nvidia_smi_error.empty());
  EXPECT_TRUE(f.ibv_devinfo);
  ASSERT_EQ(f.rdma.size(), 2u);
  EXPECT_EQ(f.rdma[0].device, "mlx5_0");
  EXPECT_EQ(f.rdma[0].state, "PORT_ACTIVE");
  EXPECT_EQ(f.rdma[1].state, "PORT_DOWN");
  EXPECT_TRUE(f.python);
  EXPECT_EQ(f.versions, (std::map<std::string, std::string>{{"python", "3.11.2"},
                                                            {"torch", "2.5.1+cu124"},
                                                            {"cuda", "12.4"},
                                                            {"nccl", "2.21.5"},
                                                            {"vllm", "0.6.4"}}));
}

TEST(linux_launch_facts_test, missing_tools_are_recorded_as_missing) {
  LinuxLaunchFacts f = parse_linux_launch_facts(
      script_sections("@@ip\n[]\n@@portrange \n@@nogpus\n@@noibv\n@@nopython\n@@end\n"));
  EXPECT_FALSE(f.port_range.has_value());
  EXPECT_FALSE(f.nvidia_smi);
  EXPECT_FALSE(f.ibv_devinfo);
  EXPECT_FALSE(f.python);
  EXPECT_TRUE(f.versions.empty());
  // python3 without torch or vLLM: only its own version.
  f = parse_linux_launch_facts(script_sections("@@v_python 3.12.1\n@@end\n"));
  EXPECT_TRUE(f.python);
  EXPECT_EQ(f.versions.size(), 1u);
}

TEST(linux_launch_facts_test, nvidia_smi_failing_lists_no_gpu_and_says_why) {
  LinuxLaunchFacts f = parse_linux_launch_facts(script_sections(
      "@@gpus\nNVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.\n"
      "Make sure that the latest NVIDIA driver is installed and running.\n@@end\n"));
  EXPECT_TRUE(f.nvidia_smi);
  EXPECT_TRUE(f.gpus.empty());
  EXPECT_EQ(f.nvidia_smi_error,
            "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.");
  EXPECT_TRUE(parse_smi_gpus("name, memory.total [MiB]\nA, lots\n, 1 MiB\n").empty());
  EXPECT_EQ(parse_smi_gpus("NVIDIA A100-SXM4-80GB, 81920 MiB").size(), 1u);
}

TEST(linux_launch_facts_test, port_range_out_of_bounds_is_not_read) {
  EXPECT_FALSE(parse_linux_launch_facts(script_sections("@@portrange 60999 32768\n"))
                   .port_range.has_value());
  EXPECT_FALSE(
      parse_linux_launch_facts(script_sections("@@portrange 0 70000\n")).port_range.has_value());
}

TEST(linux_launch_facts_test, the_linux_part_runs_after_ip_and_only_when_asked) {
  LiveLink l{0, "a", "eth1", "10.0.0.1", "b", "eth1", "10.0.0.2", ""};
  const std::string plain = live_script({&l}, 3);
  EXPECT_EQ(plain, live_script({&l}, 3, ""));
  EXPECT_EQ(plain.find("nvidia-smi"), std::string::npos);
  const std::string part = linux_launch_script(false);
  const std::string with = live_script({&l}, 3, part);
  size_t ip = with.find("ip -j addr show || exit 1\n");
  ASSERT_NE(ip, std::string::npos);
  EXPECT_EQ(with.find(part), ip + std::string("ip -j addr show || exit 1\n").size());
  EXPECT_NE(part.find("nvidia-smi --query-gpu=name,memory.total --format=csv,noheader"),
            std::string::npos);
  EXPECT_NE(part.find("/proc/sys/net/ipv4/ip_local_port_range"), std::string::npos);
  EXPECT_NE(part.find("python3 - vllm 2>/dev/null"), std::string::npos);
  EXPECT_NE(linux_launch_script(true).find("python3 - vllm ray "), std::string::npos);
}

TEST(linux_launch_facts_test, the_script_runs_under_sh_without_the_tools) {
  // PATH without nvidia-smi or ibv_devinfo: each says so, and the script reaches its end.
  std::string script = linux_launch_script(false) + "echo @@end\n";
  FILE* p =
      popen(("env PATH=/nonexistent-meshplan /bin/sh -s <<'EOF_SCRIPT'\n" + script + "EOF_SCRIPT\n")
                .c_str(),
            "r");
  ASSERT_NE(p, nullptr);
  std::string out;
  char buf[4096];
  size_t n = 0;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0)
    out.append(buf, n);
  pclose(p);
  auto s = script_sections(out);
  EXPECT_TRUE(s.count("nogpus")) << out;
  EXPECT_TRUE(s.count("noibv")) << out;
  EXPECT_TRUE(s.count("nopython")) << out;
  EXPECT_TRUE(s.count("end")) << out;
}

}  // namespace
}  // namespace meshplan::linux_launch_facts_test
