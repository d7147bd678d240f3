#include "lib/cluster/cluster.hpp"

#include <algorithm>

namespace meshplan {

const ThunderboltPort* Host::find_port(std::string_view id) const {
  for (const auto& p : ports) {
    if (p.id == id) return &p;
  }
  return nullptr;
}

const ThunderboltPort* Host::find_port_by_interface(std::string_view iface) const {
  for (const auto& p : ports) {
    if (p.interface == iface) return &p;
  }
  return nullptr;
}

const NetInterface* Host::find_interface(std::string_view iface) const {
  for (const auto& i : interfaces) {
    if (i.name == iface) return &i;
  }
  return nullptr;
}

bool Network::contains(std::string_view host) const {
  return all_hosts || std::find(hosts.begin(), hosts.end(), host) != hosts.end();
}

bool Cluster::operator==(const Cluster& o) const {
  return name == o.name && hosts == o.hosts && cables == o.cables && networks == o.networks &&
         findings == o.findings && generators == o.generators &&
         measured_serving == o.measured_serving;
}

const Host* Cluster::find_host(std::string_view name) const {
  int i = host_index(name);
  return i < 0 ? nullptr : &hosts[static_cast<size_t>(i)];
}

Host* Cluster::find_host(std::string_view name) {
  int i = host_index(name);
  return i < 0 ? nullptr : &hosts[static_cast<size_t>(i)];
}

int Cluster::host_index(std::string_view name) const {
  // Stale when hosts were removed, reordered or renamed since they were indexed: probe the ends.
  auto holds = [&](size_t i) {
    auto it = index_.find(hosts[i].name);
    return it != index_.end() && it->second <= i;
  };
  if (indexed_ > hosts.size() || (indexed_ > 0 && (!holds(0) || !holds(indexed_ - 1)))) {
    index_.clear();
    indexed_ = 0;
  }
  for (; indexed_ < hosts.size(); ++indexed_)
    index_.emplace(hosts[indexed_].name, indexed_);  // the first of equal names, as a scan finds
  auto it = index_.find(std::string(name));
  if (it == index_.end()) return -1;
  if (hosts[it->second].name != name) {  // renamed in place: index again
    index_.clear();
    indexed_ = 0;
    return host_index(name);
  }
  return static_cast<int>(it->second);
}

}  // namespace meshplan
