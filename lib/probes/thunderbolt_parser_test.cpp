#include "lib/probes/thunderbolt_parser.hpp"

#include <gtest/gtest.h>

#include "lib/probes/probe_set.hpp"
#include "tests/test_support.hpp"

namespace meshplan::thunderbolt_parser_test {
namespace {

using testing::fixture_path;
using testing::read_text;

TEST(thunderbolt_parser_test, macbook_m5_max_sample_has_one_mac_peer_at_80) {
  auto buses = parse_thunderbolt(read_text(fixture_path("tb_sample_1_macbookpro_m5max_tb5.json")));
  ASSERT_EQ(buses.size(), 3u);
  EXPECT_EQ(buses[0].receptacle_id, "1");  // sorted by receptacle, not by bus
  EXPECT_EQ(buses[0].bus, "thunderboltusb4_bus_0");
  EXPECT_EQ(buses[0].domain_uuid, "817DCFA4-B481-4100-80FC-91C7AA969F0B");
  EXPECT_DOUBLE_EQ(buses[0].speed_gbps, 80);
  EXPECT_TRUE(buses[0].connected);
  ASSERT_EQ(buses[0].peers.size(), 1u);
  EXPECT_EQ(buses[0].peers[0].domain_uuid, "28CA4C30-A263-4C55-B302-953416D0B209");
  EXPECT_EQ(buses[0].peers[0].model_id, "Mac15,14");
  EXPECT_EQ(buses[0].peers[0].depth, 1);
  for (size_t i = 1; i < 3; ++i) {
    EXPECT_DOUBLE_EQ(buses[i].speed_gbps, 0) << i;
    EXPECT_DOUBLE_EQ(buses[i].max_speed_gbps, 120) << i;
    EXPECT_FALSE(buses[i].connected);
    EXPECT_TRUE(buses[i].peers.empty());
  }
}

TEST(thunderbolt_parser_test, studio_sample_drive_is_a_device_not_a_peer) {
  auto buses = parse_thunderbolt(read_text(fixture_path("tb_sample_2_macstudio_m3ultra_tb5.json")));
  ASSERT_EQ(buses.size(), 6u);
  EXPECT_EQ(buses[1].receptacle_id, "2");
  ASSERT_EQ(buses[1].peers.size(), 1u);
  EXPECT_EQ(buses[1].peers[0].domain_uuid, "817DCFA4-B481-4100-80FC-91C7AA969F0B");
  EXPECT_EQ(buses[1].peers[0].name, "MacBook Pro");
  EXPECT_EQ(buses[3].receptacle_id, "4");
  EXPECT_TRUE(buses[3].peers.empty());  // the OWC Envoy Ultra has no domain UUID
  ASSERT_EQ(buses[3].devices.size(), 1u);
  EXPECT_EQ(buses[3].devices[0], "Envoy Ultra");
  EXPECT_DOUBLE_EQ(buses[3].speed_gbps, 80);
}

TEST(thunderbolt_parser_test, trimmed_samples_find_peers_behind_the_dock) {
  // Real but trimmed (no UUIDs): the Mac behind the ThunderBay dock sits at _items[0]._items[0].
  auto studio = parse_thunderbolt(
      read_text(fixture_path("tb_sample_3_macstudio_m3ultra_mixed_tb5_tb4_dock_TRIMMED.json")));
  ASSERT_EQ(studio.size(), 6u);
  const TbBus& dock = studio[2];
  EXPECT_EQ(dock.receptacle_id, "3");
  EXPECT_DOUBLE_EQ(dock.speed_gbps, 40);
  EXPECT_EQ(dock.domain_uuid, "");
  ASSERT_EQ(dock.devices.size(), 2u);
  EXPECT_EQ(dock.devices[0], "ThunderBay Flex 8");
  EXPECT_EQ(dock.devices[1], "MacBook Pro");  // without a UUID it cannot be a matched peer
  EXPECT_DOUBLE_EQ(studio[5].speed_gbps, 80);
  EXPECT_EQ(studio[1].devices, std::vector<std::string>{"Mercury Helios 3S"});

  auto mbp = parse_thunderbolt(
      read_text(fixture_path("tb_sample_4_macbookpro_m4max_mixed_tb5_tb4_TRIMMED.json")));
  ASSERT_EQ(mbp.size(), 3u);
  EXPECT_DOUBLE_EQ(mbp[1].speed_gbps, 80);
  EXPECT_DOUBLE_EQ(mbp[2].speed_gbps, 40);
  EXPECT_DOUBLE_EQ(mbp[0].max_speed_gbps, 120);
}

TEST(thunderbolt_parser_test, nested_peer_with_uuid_records_depth_and_dock) {
  std::string json = R"({"SPThunderboltDataType": [{
    "_name": "thunderboltusb4_bus_2", "domain_uuid_key": "LOCAL-3",
    "receptacle_1_tag": {"receptacle_id_key": "3", "current_speed_key": "40 Gb/s"},
    "_items": [{"_name": "ThunderBay Flex 8", "mode_key": "thunderbolt_three",
                "_items": [{"_name": "MacBook Pro", "device_name_key": "Mac16,5", "domain_uuid_key": "PEER-3"}]}]}]})";
  auto buses = parse_thunderbolt(json);
  ASSERT_EQ(buses.size(), 1u);
  ASSERT_EQ(buses[0].peers.size(), 1u);
  const TbPeer& p = buses[0].peers[0];
  EXPECT_EQ(p.domain_uuid, "PEER-3");
  EXPECT_EQ(p.depth, 2);
  EXPECT_EQ(p.via, std::vector<std::string>{"ThunderBay Flex 8"});
  EXPECT_TRUE(p.via_thunderbolt3);
}

TEST(thunderbolt_parser_test, mlx_golden_inputs_parse) {
  for (const char* scenario :
       {"two_hosts_one_cable", "two_hosts_two_cables", "four_hosts_full_mesh"}) {
    for (const char* host : {"mac-a", "mac-b", "m3-ultra-1", "m3-ultra-4"}) {
      std::string path = fixture_path(std::string("mlx_golden/") + scenario + "/inputs/" + host +
                                      ".system_profiler.json");
      std::string text;
      try {
        text = read_text(path);
      } catch (const std::exception&) {
        continue;  // not every scenario has every host
      }
      auto buses = parse_thunderbolt(text);
      EXPECT_FALSE(buses.empty()) << path;
      for (const auto& b : buses)
        EXPECT_FALSE(b.domain_uuid.empty()) << path;
    }
  }
}

TEST(thunderbolt_parser_test, text_output_and_garbage_are_not_understood) {
  EXPECT_THROW(parse_thunderbolt(read_text(fixture_path("tb_text_excerpt_exo_issue1390.txt"))),
               ProbeParseError);
  EXPECT_THROW(parse_thunderbolt("garbage"), ProbeParseError);
  EXPECT_THROW(parse_thunderbolt(R"({"SPUSBDataType": []})"), ProbeParseError);
  EXPECT_THROW(parse_thunderbolt(R"({"SPThunderboltDataType": [{"receptacle_1_tag":
      {"receptacle_id_key": "1", "current_speed_key": "fast"}}]})"),
               ProbeParseError);
  // Entries without a receptacle (or a receptacle id) are not ports of this Mac: skipped, as MLX
  // #2682.
  EXPECT_TRUE(
      parse_thunderbolt(R"({"SPThunderboltDataType": [{"_name": "x"}, {"receptacle_1_tag": {}}]})")
          .empty());
}

TEST(thunderbolt_parser_test, link_speed_strings) {
  double cur = -1, max = -1;
  ASSERT_TRUE(parse_link_speed("80 Gb/s", &cur, &max));
  EXPECT_EQ(cur, 80);
  EXPECT_EQ(max, 0);
  ASSERT_TRUE(parse_link_speed("Up to 120 Gb/s", &cur, &max));
  EXPECT_EQ(cur, 0);
  EXPECT_EQ(max, 120);
  ASSERT_TRUE(parse_link_speed("Up to 40 Gb/s", &cur, &max));
  EXPECT_EQ(max, 40);
  EXPECT_FALSE(parse_link_speed("unknown", &cur, &max));
}

}  // namespace
}  // namespace meshplan::thunderbolt_parser_test
