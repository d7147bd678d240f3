// How hosts reach each other outside the Thunderbolt cables: each host's management address
// (en0, else en1, never a Thunderbolt port: JACCL's coordinator binds to it) and the shared
// networks that hold a group of hosts.
#pragma once

#include <string>
#include <vector>

#include "lib/cluster/cluster.hpp"

namespace meshplan {

struct ManagementAddress {
  std::string address;          // "" when none is known
  std::string interface;        // where it lives
  std::string problem;          // why no usable address, when address is empty
  bool on_thunderbolt = false;  // the only address found is on a Thunderbolt port
};

// en0's address when en0 is not a Thunderbolt port, else en1's, else another Ethernet or Wi-Fi
// interface's; never the address of a Thunderbolt port.
ManagementAddress management_address(const Host& host);

// Index into cluster.networks of the fastest network that holds every host of `members`, or -1.
// allow_wifi = false skips Wi-Fi networks (a TCP ring over Wi-Fi is not worth it).
int shared_network(const Cluster& cluster, const std::vector<size_t>& members, bool allow_wifi);

// "mac-a, mac-b and mac-c".
std::string join_names(const std::vector<std::string>& names);

}  // namespace meshplan
