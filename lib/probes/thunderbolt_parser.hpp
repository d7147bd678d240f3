// `system_profiler SPThunderboltDataType -json`: one entry per Thunderbolt/USB4 bus, which is one
// receptacle of the Mac, with the devices connected to it nested in `_items`. A Mac on the other
// end of a cable shows up as an item with its own `domain_uuid_key` (the UUID of *its* bus), at
// any depth when a dock or hub sits in between.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace meshplan {

// A Mac found downstream of a bus.
struct TbPeer {
  std::string domain_uuid;        // the peer's bus UUID: the key that matches the other end
  std::string name;               // "Mac Studio"
  std::string model_id;           // "Mac15,14" (device_name_key of a Mac peer)
  int depth = 1;                  // 1 = directly on the cable; 2+ = behind docks/hubs
  std::vector<std::string> via;   // names of the docks/hubs in between, outermost first
  bool via_thunderbolt3 = false;  // a device in between runs in Thunderbolt 3 mode
};

// One receptacle of the local Mac.
struct TbBus {
  std::string bus;            // "thunderboltusb4_bus_0"
  std::string receptacle_id;  // "1".."6"
  std::string domain_uuid;    // empty when the entry has none (trimmed output, some displays)
  double speed_gbps = 0;      // current link speed; 0 when nothing is linked
  double max_speed_gbps = 0;  // "Up to 120 Gb/s" on an idle port
  bool connected = false;
  std::vector<TbPeer> peers;         // Macs, depth-first order
  std::vector<std::string> devices;  // other devices (drives, docks, displays) by name
};

// Buses that name a receptacle, in receptacle order. Throws ProbeParseError when the text is not
// the JSON form of SPThunderboltDataType.
std::vector<TbBus> parse_thunderbolt(std::string_view json_text);

// "80 Gb/s" -> current 80; "Up to 120 Gb/s" -> maximum 120. False when the text is neither.
bool parse_link_speed(std::string_view text, double* current, double* maximum);

}  // namespace meshplan
