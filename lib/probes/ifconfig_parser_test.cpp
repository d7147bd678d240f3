#include "lib/probes/ifconfig_parser.hpp"

#include <gtest/gtest.h>

#include "lib/probes/probe_set.hpp"
#include "tests/test_support.hpp"

namespace meshplan::ifconfig_parser_test {
namespace {

using testing::fixture_path;
using testing::read_text;

const IfconfigInterface* find(const std::vector<IfconfigInterface>& v, const std::string& name) {
  for (const auto& i : v) {
    if (i.name == name) return &i;
  }
  return nullptr;
}

TEST(ifconfig_parser_test, intel_macbook_bridge0_holds_the_thunderbolt_ports) {
  auto ifs = parse_ifconfig(read_text(fixture_path("ifconfig_intel_macbookpro_tb3_bridge0.txt")));
  const auto* bridge = find(ifs, "bridge0");
  ASSERT_NE(bridge, nullptr);
  EXPECT_TRUE(bridge->up);
  EXPECT_FALSE(bridge->active);
  EXPECT_EQ(bridge->members, (std::vector<std::string>{"en1", "en2", "en3", "en4"}));
  EXPECT_EQ(bridge->ipv4, "");
  const auto* lo = find(ifs, "lo0");
  ASSERT_NE(lo, nullptr);
  EXPECT_EQ(lo->ipv4, "127.0.0.1");
  EXPECT_EQ(lo->prefix, 8);
  const auto* b100 = find(ifs, "bridge100");
  ASSERT_NE(b100, nullptr);
  EXPECT_EQ(b100->ipv4, "192.168.64.1");
  EXPECT_EQ(b100->prefix, 24);
  EXPECT_EQ(b100->members, std::vector<std::string>{"en10"});
  const auto* en8 = find(ifs, "en8");
  ASSERT_NE(en8, nullptr);
  EXPECT_DOUBLE_EQ(en8->speed_gbps, 0.1);  // 100baseTX
  EXPECT_TRUE(en8->active);
  const auto* stf = find(ifs, "stf0");
  ASSERT_NE(stf, nullptr);
  EXPECT_FALSE(stf->up);
}

TEST(ifconfig_parser_test, bridge0_with_a_manual_address) {
  auto ifs = parse_ifconfig(read_text(fixture_path("ifconfig_bridge0_excerpt_mlx_issue1903.txt")));
  ASSERT_EQ(ifs.size(), 1u);
  EXPECT_EQ(ifs[0].name, "bridge0");
  EXPECT_EQ(ifs[0].ipv4, "10.25.0.1");
  EXPECT_EQ(ifs[0].prefix, 24);
  EXPECT_EQ(ifs[0].members, (std::vector<std::string>{"en2", "en3", "en4"}));
  EXPECT_TRUE(ifs[0].active);
}

TEST(ifconfig_parser_test, netmasks_media_and_getifaddr) {
  EXPECT_EQ(netmask_prefix("0xffffff00"), 24);
  EXPECT_EQ(netmask_prefix("0xfffffffc"), 30);
  EXPECT_EQ(netmask_prefix("255.255.0.0"), 16);
  EXPECT_EQ(netmask_prefix("0xff00ff00"), -1);
  EXPECT_EQ(netmask_prefix("mask"), -1);
  EXPECT_DOUBLE_EQ(media_speed_gbps("autoselect (10Gbase-T <full-duplex>)"), 10);
  EXPECT_DOUBLE_EQ(media_speed_gbps("autoselect (1000baseT <full-duplex>)"), 1);
  EXPECT_DOUBLE_EQ(media_speed_gbps("2500Base-T <full-duplex>"), 2.5);
  EXPECT_DOUBLE_EQ(media_speed_gbps("autoselect"), 0);
  EXPECT_EQ(parse_getifaddr(read_text(
                fixture_path("mlx_golden/four_hosts_full_mesh/inputs/m3-ultra-3.en0_ip.txt"))),
            "10.0.0.3");
  EXPECT_EQ(parse_getifaddr(""), "");
  EXPECT_EQ(parse_getifaddr("get if addr en1 failed"), "");
  EXPECT_THROW(parse_ifconfig("garbage\n"), ProbeParseError);
}

}  // namespace
}  // namespace meshplan::ifconfig_parser_test
