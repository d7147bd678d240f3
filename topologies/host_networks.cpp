#include "topologies/host_networks.hpp"

#include <fmt/format.h>

namespace meshplan {

ManagementAddress management_address(const Host& host) {
  ManagementAddress out;
  for (const char* name : {"en0", "en1"}) {
    const NetInterface* i = host.find_interface(name);
    bool tb_port = host.find_port_by_interface(name) != nullptr || (i && i->kind == "thunderbolt");
    if (!i || i->ipv4.empty()) continue;
    if (tb_port) {
      out.on_thunderbolt = true;
      out.interface = name;
      continue;
    }
    out.address = i->ipv4;
    out.interface = name;
    out.on_thunderbolt = false;
    return out;
  }
  for (const auto& i : host.interfaces) {
    if (i.ipv4.empty() || (i.kind != "ethernet" && i.kind != "wifi") ||
        host.find_port_by_interface(i.name))
      continue;
    out.address = i.ipv4;
    out.interface = i.name;
    out.on_thunderbolt = false;
    return out;
  }
  if (out.on_thunderbolt) {
    out.problem = fmt::format("the only address of {} is on {}, a Thunderbolt port", host.name,
                              out.interface);
  } else {
    out.problem = fmt::format("no address of {} is known (en0, en1)", host.name);
  }
  return out;
}

int shared_network(const Cluster& cluster, const std::vector<size_t>& members, bool allow_wifi) {
  int best = -1;
  for (size_t n = 0; n < cluster.networks.size(); ++n) {
    const Network& net = cluster.networks[n];
    if (!allow_wifi && net.kind == LinkKind::kWifi) continue;
    bool all = true;
    for (size_t m : members)
      all = all && net.contains(cluster.hosts[m].name);
    // LinkKind lists networks fastest first: the ranks talk over the fastest (as the launchers).
    if (all && (best < 0 || net.kind < cluster.networks[static_cast<size_t>(best)].kind))
      best = static_cast<int>(n);
  }
  return best;
}

std::string join_names(const std::vector<std::string>& names) {
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) {
    if (i > 0) out += i + 1 == names.size() ? " and " : ", ";
    out += names[i];
  }
  return out;
}

}  // namespace meshplan
