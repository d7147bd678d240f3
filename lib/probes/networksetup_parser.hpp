// `networksetup -listallhardwareports`: "Hardware Port: NAME" / "Device: enX" blocks. Thunderbolt
// receptacle N is the device of the port named exactly "Thunderbolt N"; the mapping differs per
// machine and is not monotonic (M5 Max: 1 -> en1, 2 -> en6, 3 -> en2), and dock NICs named
// "Thunderbolt Ethernet Slot 0" or the "Thunderbolt Bridge" are never receptacles.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace meshplan {

struct HardwarePort {
  std::string name;    // "Thunderbolt 1", "Wi-Fi", "Ethernet Adapter (en3)"
  std::string device;  // "en2"
  std::string mac;     // "Ethernet Address", when listed
};

// Throws ProbeParseError when the text holds no Hardware Port / Device block.
std::vector<HardwarePort> parse_networksetup(std::string_view text);

// The device of "Thunderbolt <receptacle_id>", or "" when there is none.
std::string thunderbolt_device(const std::vector<HardwarePort>& ports,
                               std::string_view receptacle_id);

// The interface kind a hardware port name means: "thunderbolt" (Thunderbolt N), "bridge"
// (Thunderbolt Bridge), "wifi", "ethernet" (Ethernet, LAN adapters, dock NICs) or "other".
std::string hardware_port_kind(std::string_view port_name);

}  // namespace meshplan
