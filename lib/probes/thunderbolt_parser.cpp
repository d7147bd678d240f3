#include "lib/probes/thunderbolt_parser.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "lib/core/units.hpp"
#include "lib/probes/probe_set.hpp"

namespace meshplan {
namespace {

using nlohmann::json;

std::string string_field(const json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end()) return "";
  if (it->is_string()) return it->get<std::string>();
  if (it->is_number_integer()) return std::to_string(it->get<long long>());
  return "";
}

// Depth-first over a bus's items: Macs are peers (not descended into), everything else is a
// device whose own items are searched one level deeper.
void walk(const json& items, int depth, std::vector<std::string> via, bool tb3, TbBus* bus) {
  if (!items.is_array()) return;
  for (const auto& item : items) {
    if (!item.is_object()) continue;
    std::string name = string_field(item, "_name");
    std::string uuid = string_field(item, "domain_uuid_key");
    if (!uuid.empty()) {
      TbPeer peer;
      peer.domain_uuid = uuid;
      peer.name = name;
      peer.model_id = string_field(item, "device_name_key");
      peer.depth = depth;
      peer.via = via;
      peer.via_thunderbolt3 = tb3;
      bus->peers.push_back(std::move(peer));
      continue;
    }
    bus->devices.push_back(name.empty() ? string_field(item, "device_name_key") : name);
    auto sub = item.find("_items");
    if (sub != item.end()) {
      std::vector<std::string> next = via;
      next.push_back(bus->devices.back());
      walk(*sub, depth + 1, next, tb3 || string_field(item, "mode_key") == "thunderbolt_three",
           bus);
    }
  }
}

int receptacle_number(const std::string& id) {
  int v = 0;
  for (char c : id) {
    // Not a number, or one beyond any receptacle: sorted after every real one.
    if (c < '0' || c > '9' || v > 100000) return 1 << 20;
    v = v * 10 + (c - '0');
  }
  return v;
}

}  // namespace

bool parse_link_speed(std::string_view text, double* current, double* maximum) {
  std::string t = to_lower(trim(text));
  bool up_to = t.rfind("up to", 0) == 0;
  auto v = parse_gbps(t);
  if (!v) return false;
  *current = up_to ? 0 : *v;
  *maximum = up_to ? *v : 0;
  return true;
}

std::vector<TbBus> parse_thunderbolt(std::string_view json_text) {
  json doc = json::parse(json_text, nullptr, false);
  if (doc.is_discarded())
    throw ProbeParseError(
        "expected the JSON of system_profiler SPThunderboltDataType -json, got text that is not "
        "JSON");
  if (!doc.is_object() || !doc.contains("SPThunderboltDataType") ||
      !doc["SPThunderboltDataType"].is_array())
    throw ProbeParseError("expected a JSON object with an SPThunderboltDataType array");
  std::vector<TbBus> buses;
  for (const auto& entry : doc["SPThunderboltDataType"]) {
    if (!entry.is_object()) continue;
    auto tag = entry.find("receptacle_1_tag");
    if (tag == entry.end() || !tag->is_object()) continue;  // not a receptacle of this Mac
    TbBus bus;
    bus.receptacle_id = string_field(*tag, "receptacle_id_key");
    if (bus.receptacle_id.empty()) continue;
    bus.bus = string_field(entry, "_name");
    bus.domain_uuid = string_field(entry, "domain_uuid_key");
    std::string speed = string_field(*tag, "current_speed_key");
    if (!speed.empty() && !parse_link_speed(speed, &bus.speed_gbps, &bus.max_speed_gbps))
      throw ProbeParseError(fmt::format(
          "receptacle {}: expected a speed such as \"80 Gb/s\" or \"Up to 120 Gb/s\", got \"{}\"",
          bus.receptacle_id, speed));
    bus.connected =
        string_field(*tag, "receptacle_status_key") == "receptacle_connected" || bus.speed_gbps > 0;
    if (auto items = entry.find("_items"); items != entry.end()) walk(*items, 1, {}, false, &bus);
    buses.push_back(std::move(bus));
  }
  std::stable_sort(buses.begin(), buses.end(), [](const TbBus& a, const TbBus& b) {
    return receptacle_number(a.receptacle_id) < receptacle_number(b.receptacle_id);
  });
  return buses;
}

}  // namespace meshplan
