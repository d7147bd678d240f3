// The trimmed real captures of a Mac Studio and a MacBook Pro cabled twice (TB5 direct, and
// 40 Gb/s through a ThunderBay TB3 dock on the Studio side, where the MacBook sits at
// _items[0]._items[0]), with the domain UUIDs the trimming removed put back.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <utility>

#include "tests/test_support.hpp"

namespace meshplan::testing {

// {studio JSON, MacBook JSON}; without `mbp_sees_dock_cable` the MacBook shows nothing on its
// receptacle 3, so that cable is seen from the Studio only.
inline std::pair<std::string, std::string> dock_pair(bool mbp_sees_dock_cable = true) {
  using nlohmann::json;
  json studio = json::parse(
      read_text(fixture_path("tb_sample_3_macstudio_m3ultra_mixed_tb5_tb4_dock_TRIMMED.json")));
  for (auto& bus : studio["SPThunderboltDataType"]) {
    std::string id = bus["receptacle_1_tag"]["receptacle_id_key"];
    bus["domain_uuid_key"] = "STUDIO-R" + id;
    if (id == "6") bus["_items"][0]["domain_uuid_key"] = "MBP-R2";
    if (id == "3") bus["_items"][0]["_items"][0]["domain_uuid_key"] = "MBP-R3";
  }
  json mbp = json::parse(
      read_text(fixture_path("tb_sample_4_macbookpro_m4max_mixed_tb5_tb4_TRIMMED.json")));
  for (auto& bus : mbp["SPThunderboltDataType"]) {
    std::string id = bus["receptacle_1_tag"]["receptacle_id_key"];
    bus["domain_uuid_key"] = "MBP-R" + id;
    if (id == "2") bus["_items"][0]["domain_uuid_key"] = "STUDIO-R6";
    if (id == "3") {
      if (mbp_sees_dock_cable)
        bus["_items"][0]["domain_uuid_key"] = "STUDIO-R3";
      else
        bus.erase("_items");
    }
  }
  return {studio.dump(2), mbp.dump(2)};
}

}  // namespace meshplan::testing
