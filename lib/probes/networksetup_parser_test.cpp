#include "lib/probes/networksetup_parser.hpp"

#include <gtest/gtest.h>

#include "lib/probes/probe_set.hpp"
#include "tests/test_support.hpp"

namespace meshplan::networksetup_parser_test {
namespace {

using testing::fixture_path;
using testing::read_text;

TEST(networksetup_parser_test, m5_max_mapping_is_not_monotonic_and_dock_nics_are_not_ports) {
  auto ports =
      parse_networksetup(read_text(fixture_path("networksetup_m5max_macbookpro_macos26_5.txt")));
  EXPECT_EQ(thunderbolt_device(ports, "1"), "en1");
  EXPECT_EQ(thunderbolt_device(ports, "2"), "en6");
  EXPECT_EQ(thunderbolt_device(ports, "3"), "en2");
  EXPECT_EQ(thunderbolt_device(ports, "4"), "");
  for (const auto& p : ports) {
    if (p.device == "en10" || p.device == "en11") {
      EXPECT_EQ(hardware_port_kind(p.name), "ethernet") << p.name;  // "Thunderbolt Ethernet Slot 0"
    }
    if (p.device == "bridge0") {
      EXPECT_EQ(hardware_port_kind(p.name), "bridge");
    }
    if (p.device == "en0") {
      EXPECT_EQ(hardware_port_kind(p.name), "wifi");
      EXPECT_EQ(p.mac, "aa:bb:cc:dd:ee:00");
    }
    if (p.device == "en16") {
      EXPECT_EQ(hardware_port_kind(p.name), "ethernet");
    }
  }
}

TEST(networksetup_parser_test, studio_and_macbook_trimmed_captures) {
  auto studio =
      parse_networksetup(read_text(fixture_path("networksetup_m3ultra_macstudio_trimmed.txt")));
  for (int i = 1; i <= 6; ++i)
    EXPECT_EQ(thunderbolt_device(studio, std::to_string(i)), "en" + std::to_string(i + 1));
  EXPECT_EQ(studio[0].device, "en0");
  EXPECT_EQ(hardware_port_kind(studio[0].name), "ethernet");
  auto mbp =
      parse_networksetup(read_text(fixture_path("networksetup_m4max_macbookpro_trimmed.txt")));
  for (int i = 1; i <= 3; ++i)
    EXPECT_EQ(thunderbolt_device(mbp, std::to_string(i)), "en" + std::to_string(i));
  // The trailing "VLAN Configurations" section adds nothing.
  EXPECT_EQ(mbp.back().device, "en3");
}

TEST(networksetup_parser_test, mlx_golden_inputs) {
  auto ports = parse_networksetup(read_text(
      fixture_path("mlx_golden/four_hosts_full_mesh/inputs/m3-ultra-2.networksetup.txt")));
  EXPECT_EQ(thunderbolt_device(ports, "1"), "en2");
  EXPECT_EQ(thunderbolt_device(ports, "6"), "en7");
  auto two = parse_networksetup(
      read_text(fixture_path("mlx_golden/two_hosts_one_cable/inputs/mac-a.networksetup.txt")));
  EXPECT_FALSE(thunderbolt_device(two, "1").empty());
}

TEST(networksetup_parser_test, kinds_and_garbage) {
  EXPECT_EQ(hardware_port_kind("Thunderbolt 12"), "thunderbolt");
  EXPECT_EQ(hardware_port_kind("Thunderbolt Bridge"), "bridge");
  EXPECT_EQ(hardware_port_kind("Thunderbolt Ethernet Slot 1, Port 1"), "ethernet");
  EXPECT_EQ(hardware_port_kind("Ethernet Adapter (en4)"), "ethernet");
  EXPECT_EQ(hardware_port_kind("USB 10/100/1G/2.5G LAN"), "ethernet");
  EXPECT_EQ(hardware_port_kind("iPhone USB"), "other");
  EXPECT_THROW(parse_networksetup("garbage\nmore garbage\n"), ProbeParseError);
  EXPECT_THROW(parse_networksetup(""), ProbeParseError);
}

}  // namespace
}  // namespace meshplan::networksetup_parser_test
