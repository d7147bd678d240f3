// Shared networks from discovered addresses: hosts whose Ethernet or Wi-Fi interfaces sit in the
// same IPv4 subnet are on one network (a switch or an access point). Thunderbolt interfaces,
// the Thunderbolt Bridge and link-local addresses are cables, not networks, and are left out.
#pragma once

#include <vector>

#include "lib/cluster/catalog.hpp"
#include "lib/cluster/cluster.hpp"

namespace meshplan {

// One Network per subnet reached by two or more hosts, kind from the slowest member interface
// (Wi-Fi if any member is Wi-Fi; an Ethernet speed from ifconfig media, else the machine's
// built-in Ethernet, else 1 GbE). Interfaces without a prefix length are not grouped.
std::vector<Network> group_networks(const std::vector<Host>& hosts, const Catalog& catalog);

}  // namespace meshplan
