// BSD `ifconfig` (macOS): one block per interface, "en0: flags=8863<UP,...> mtu 1500" followed by
// tab-indented lines (inet with a hex netmask, media, status, bridge members). Also
// `ipconfig getifaddr en0`, which prints one address or nothing.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace meshplan {

struct IfconfigInterface {
  std::string name;
  bool up = false;                     // the UP flag (administratively up)
  bool active = false;                 // "status: active"
  std::string ipv4;                    // first IPv4 address, if any
  int prefix = 0;                      // from the netmask
  double speed_gbps = 0;               // from media, e.g. "10Gbase-T" -> 10; 0 when unknown
  std::vector<std::string> members;    // bridge members
  std::vector<std::string> addresses;  // every IPv4 address, "a.b.c.d/p"
};

// Throws ProbeParseError when no interface header line is found.
std::vector<IfconfigInterface> parse_ifconfig(std::string_view text);

// "0xffffff00" or "255.255.255.0" -> 24; -1 when not a netmask.
int netmask_prefix(std::string_view mask);

// The address printed by `ipconfig getifaddr IF`, or "" when the text is not one IPv4 address.
std::string parse_getifaddr(std::string_view text);

// Media speed in Gb/s: "autoselect (10Gbase-T <full-duplex>)" -> 10, "1000baseT" -> 1,
// "100baseTX" -> 0.1, "2500Base-T" -> 2.5; 0 when none is named.
double media_speed_gbps(std::string_view media);

}  // namespace meshplan
