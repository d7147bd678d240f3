#include "lib/probes/ibv_parser.hpp"

#include <gtest/gtest.h>

#include "tests/test_support.hpp"

namespace meshplan::ibv_parser_test {
namespace {

using testing::fixture_path;
using testing::read_text;
using Names = std::vector<std::string>;

// The samples file holds several captures, each after a "# Sample N" header.
std::string sample(int n) {
  std::string text = read_text(fixture_path("ibv_devices_samples.txt"));
  std::string head = "# Sample " + std::to_string(n);
  size_t begin = text.find(head);
  EXPECT_NE(begin, std::string::npos) << head;
  size_t end = text.find("# Sample " + std::to_string(n + 1), begin);
  return text.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
}

TEST(ibv_parser_test, ibv_devices_samples) {
  EXPECT_EQ(parse_ibv_devices(sample(1)),
            (Names{"rdma_en2", "rdma_en3", "rdma_en5", "rdma_en4", "rdma_en6", "rdma_en7"}));
  EXPECT_EQ(parse_ibv_devices(sample(2)), (Names{"rdma_en2", "rdma_en3", "rdma_en4"}));
  EXPECT_EQ(parse_ibv_devices(sample(4)),
            (Names{"rdma_en2", "rdma_en3", "rdma_en4"}));  // redacted GUIDs
  EXPECT_TRUE(parse_ibv_devices(sample(5)).empty());       // Thunderbolt 4: header only
  EXPECT_EQ(
      parse_ibv_devices(read_text(fixture_path(
                            "mlx_golden/four_hosts_full_mesh/inputs/m3-ultra-1.ibv_devices.txt")))
          .size(),
      6u);
}

TEST(ibv_parser_test, ibv_devinfo_port_states) {
  auto apple = parse_ibv_devinfo(sample(3));
  ASSERT_EQ(apple.size(), 3u);
  for (const auto& p : apple) {
    EXPECT_EQ(p.port, 1);
    EXPECT_EQ(p.state, "PORT_ACTIVE");
  }
  EXPECT_EQ(apple[2].device, "rdma_en4");

  auto down = parse_ibv_devinfo(
      read_text(fixture_path("linux/ibv_devinfo_mlx5_CX7_port_down_EXCERPT.txt")));
  ASSERT_EQ(down.size(), 2u);
  EXPECT_EQ(down[0].device, "mlx5_0");
  EXPECT_EQ(down[0].state, "PORT_DOWN");
  EXPECT_EQ(down[0].link_layer, "InfiniBand");
  EXPECT_EQ(down[1].device, "mlx5_1");  // excerpt ends before its ports
  EXPECT_EQ(down[1].port, 0);

  auto azure =
      parse_ibv_devinfo(read_text(fixture_path("linux/ibv_devinfo_azure_hbv2_EXCERPT.txt")));
  ASSERT_GE(azure.size(), 1u);
  EXPECT_EQ(azure[0].device, "rdmaP23800p0s2");
  EXPECT_EQ(azure[0].state, "PORT_ACTIVE");
  EXPECT_EQ(azure[0].link_layer, "Ethernet");
}

TEST(ibv_parser_test, no_hca_is_not_an_error) {
  std::string text = read_text(fixture_path("linux/ib_tools_no_hca_debian12.txt"));
  EXPECT_TRUE(ibv_reports_no_devices(text));
  EXPECT_TRUE(parse_ibv_devices(text).empty());
  EXPECT_TRUE(parse_ibv_devinfo(text).empty());
  EXPECT_FALSE(ibv_reports_no_devices(sample(1)));
}

}  // namespace
}  // namespace meshplan::ibv_parser_test
