#include "lib/probes/gpu_topology_parser.hpp"

#include <gtest/gtest.h>

#include "lib/probes/probe_set.hpp"
#include "tests/test_support.hpp"

namespace meshplan::gpu_topology_parser_test {
namespace {

std::string fixture(const std::string& name) {
  return testing::read_text(testing::fixture_path("linux/" + name));
}

TEST(gpu_topology_parser_test, two_h200_joined_by_18_nvlinks) {
  GpuTopology t = parse_gpu_topology(fixture("nvidia-smi_topo-m_h200x2.txt"));
  ASSERT_EQ(t.gpus.size(), 2u);
  EXPECT_EQ(t.links[0][1], "NV18");
  EXPECT_EQ(t.nvlinks(0, 1), 18);
  EXPECT_EQ(t.nvlinks(1, 0), 18);
  EXPECT_TRUE(t.nics.empty());
  EXPECT_EQ(t.nearest_nic(0), -1);
  EXPECT_EQ(t.numa[1], "0");
}

TEST(gpu_topology_parser_test, one_h100_has_a_one_by_one_matrix) {
  GpuTopology t = parse_gpu_topology(fixture("nvidia-smi_topo-m_h100x1.txt"));
  ASSERT_EQ(t.gpus.size(), 1u);
  EXPECT_EQ(t.links[0][0], "X");
}

TEST(gpu_topology_parser_test, hgx_h100_each_gpu_has_its_own_nic) {
  GpuTopology t =
      parse_gpu_topology(fixture("nvidia-smi_topo-m_HGX-H100x8_10NIC_EXCERPT_nccl-issue1264.txt"));
  ASSERT_EQ(t.gpus.size(), 8u);
  ASSERT_EQ(t.nics.size(), 10u);
  for (size_t a = 0; a < 8; ++a)
    for (size_t b = 0; b < 8; ++b)
      EXPECT_EQ(t.nvlinks(a, b), a == b ? 0 : 18);
  EXPECT_EQ(t.nearest_nic(0), 0);
  EXPECT_EQ(t.nearest_nic(3), 5);  // GPU3 sits on NIC5's switch in this box
  EXPECT_EQ(t.numa[4], "1");
}

TEST(gpu_topology_parser_test, pcie_boxes_and_nic_names_from_the_legend) {
  std::string text =
      "\tGPU0\tGPU1\tNIC0\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\n"
      "GPU0\t X \tPHB\tPIX\t0-15\t0\t\tN/A\n"
      "GPU1\tPHB\t X \tSYS\t0-15\t0\t\tN/A\n"
      "NIC0\tPIX\tSYS\t X \t\t\t\t\n\nLegend:\n\n  X    = Self\n\nNIC Legend:\n\n  NIC0: mlx5_0\n";
  GpuTopology t = parse_gpu_topology(text);
  EXPECT_EQ(t.links[0][1], "PHB");
  EXPECT_EQ(t.nvlinks(0, 1), 0);
  ASSERT_EQ(t.nics.size(), 1u);
  EXPECT_EQ(t.nics[0], "mlx5_0");
  EXPECT_EQ(t.nearest_nic(1), 0);
}

TEST(gpu_topology_parser_test, odd_output_is_a_parse_error) {
  EXPECT_THROW(parse_gpu_topology(""), ProbeParseError);
  EXPECT_THROW(parse_gpu_topology("No devices were found\n"), ProbeParseError);
  EXPECT_THROW(parse_gpu_topology("\tGPU0\tGPU1\nGPU0\t X \tNV18\n"), ProbeParseError);
  EXPECT_THROW(parse_gpu_topology("\tGPU0\tGPU1\nGPU0\t X \tWARP\nGPU1\tNV4\t X \n"),
               ProbeParseError);
  EXPECT_THROW(parse_gpu_topology("\tGPU0\nGPU0\tNV4\n"), ProbeParseError);
}

}  // namespace
}  // namespace meshplan::gpu_topology_parser_test
