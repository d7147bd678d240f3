#include "lib/discovery/network_grouping.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <sstream>

#include "lib/cluster/cluster_reader.hpp"
#include "lib/cluster/value_readers.hpp"

namespace meshplan {
namespace {

uint32_t ipv4_value(const std::string& addr) {
  uint32_t v = 0;
  std::istringstream in(addr);
  std::string part;
  while (std::getline(in, part, '.'))
    v = (v << 8) | static_cast<uint32_t>(std::stoul(part));
  return v;
}

std::string ipv4_text(uint32_t v) {
  return fmt::format("{}.{}.{}.{}", v >> 24, (v >> 16) & 255, (v >> 8) & 255, v & 255);
}

// Slower kinds first: wifi, 1gbe, 2.5gbe, ... 400gbe.
int rank(LinkKind k) {
  switch (k) {
    case LinkKind::kWifi:
      return 0;
    case LinkKind::k1gbe:
      return 1;
    case LinkKind::k2_5gbe:
      return 2;
    case LinkKind::k5gbe:
      return 3;
    case LinkKind::k10gbe:
      return 4;
    case LinkKind::k25gbe:
      return 5;
    case LinkKind::k100gbe:
      return 6;
    case LinkKind::k200gbe:
      return 7;
    case LinkKind::k400gbe:
      return 8;
    default:
      return 9;
  }
}

LinkKind interface_kind(const Host& host, const NetInterface& n, const Catalog& catalog) {
  if (n.kind == "wifi") return LinkKind::kWifi;
  if (n.speed_gbps > 0) return ethernet_kind_for_speed(n.speed_gbps);
  if (const MachineSpec* m = host_machine(host, catalog)) {
    if (m->ethernet && m->management_interface == n.name) return *m->ethernet;
  }
  return LinkKind::k1gbe;
}

struct Group {
  std::vector<std::string> hosts;
  LinkKind kind = LinkKind::k100gbe;
};

}  // namespace

std::vector<Network> group_networks(const std::vector<Host>& hosts, const Catalog& catalog) {
  std::map<std::pair<uint32_t, int>, Group> groups;
  std::vector<std::pair<uint32_t, int>> order;
  for (const auto& h : hosts) {
    for (const auto& n : h.interfaces) {
      if (n.kind != "ethernet" && n.kind != "wifi") continue;
      if (n.ipv4.empty() || !valid_ipv4(n.ipv4) || n.prefix <= 0 || n.prefix > 30) continue;
      uint32_t addr = ipv4_value(n.ipv4);
      if ((addr >> 16) == ((169u << 8) | 254u) || (addr >> 24) == 127) continue;
      uint32_t mask = n.prefix == 0 ? 0 : ~uint32_t{0} << (32 - n.prefix);
      auto key = std::make_pair(addr & mask, n.prefix);
      auto [it, added] = groups.emplace(key, Group{});
      if (added) order.push_back(key);
      Group& g = it->second;
      if (std::find(g.hosts.begin(), g.hosts.end(), h.name) == g.hosts.end())
        g.hosts.push_back(h.name);
      LinkKind k = interface_kind(h, n, catalog);
      if (rank(k) < rank(g.kind)) g.kind = k;
    }
  }
  std::vector<Network> out;
  for (const auto& key : order) {
    const Group& g = groups[key];
    if (g.hosts.size() < 2) continue;
    Network net;
    net.kind = g.kind;
    net.hosts = g.hosts;
    net.subnet = fmt::format("{}/{}", ipv4_text(key.first), key.second);
    out.push_back(std::move(net));
  }
  return out;
}

}  // namespace meshplan
