#include "lib/probes/nvlink_status_parser.hpp"

#include <gtest/gtest.h>

#include "lib/probes/probe_set.hpp"
#include "tests/test_support.hpp"

namespace meshplan::nvlink_status_parser_test {
namespace {

// Measured on two H200s joined by NV18 (driver 580.159.04): every link up at 26.562 GB/s.
TEST(nvlink_status_parser_test, two_h200s_with_every_link_up) {
  auto gpus = parse_nvlink_status(
      testing::read_text(testing::fixture_path("linux/nvidia-smi_nvlink-s_h200x2.txt")));
  ASSERT_EQ(gpus.size(), 2u);
  for (int g = 0; g < 2; ++g) {
    EXPECT_EQ(gpus[g].gpu, g);
    EXPECT_EQ(gpus[g].up, 18);
    EXPECT_EQ(gpus[g].down, 0);
    EXPECT_DOUBLE_EQ(gpus[g].rate_GBps, 26.562);
  }
}

TEST(nvlink_status_parser_test, links_down_and_gpus_without_nvlink) {
  auto gpus = parse_nvlink_status(
      "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-a)\n"
      "\t Link 0: 26.562 GB/s\n\t Link 1: <inactive>\n\t Link 2: 25 GB/s\r\n"
      "GPU 1: NVIDIA L40S (UUID: GPU-b)\n");
  ASSERT_EQ(gpus.size(), 2u);
  EXPECT_EQ(gpus[0].up, 2);
  EXPECT_EQ(gpus[0].down, 1);
  EXPECT_DOUBLE_EQ(gpus[0].rate_GBps, 25);  // the slowest link that is up
  EXPECT_EQ(gpus[1].up + gpus[1].down, 0);
  EXPECT_TRUE(parse_nvlink_status("").empty());
}

TEST(nvlink_status_parser_test, odd_output_is_refused_with_the_line) {
  try {
    parse_nvlink_status("\t Link 0: 26.562 GB/s\n");
    FAIL();
  } catch (const ProbeParseError& e) {
    EXPECT_NE(std::string(e.what()).find("line 1: a link before any GPU"), std::string::npos);
  }
  try {
    parse_nvlink_status("GPU 0: X\n\t Link 0: fast\n");
    FAIL();
  } catch (const ProbeParseError& e) {
    EXPECT_NE(std::string(e.what()).find("line 2: expected \"Link N: <rate> GB/s\""),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace meshplan::nvlink_status_parser_test
