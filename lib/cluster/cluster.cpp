#include "lib/cluster/cluster.hpp"

#include <algorithm>
#include <array>

namespace meshplan {
namespace {

struct KindName {
  LinkKind kind;
  const char* name;
};

constexpr std::array<KindName, 14> kKinds = {{
    {LinkKind::kTb5, "tb5"},
    {LinkKind::kTb4, "tb4"},
    {LinkKind::kTb3, "tb3"},
    {LinkKind::kIbNdr, "ib-ndr"},
    {LinkKind::kIbHdr, "ib-hdr"},
    {LinkKind::k400gbe, "400gbe"},
    {LinkKind::k200gbe, "200gbe"},
    {LinkKind::k100gbe, "100gbe"},
    {LinkKind::k25gbe, "25gbe"},
    {LinkKind::k10gbe, "10gbe"},
    {LinkKind::k5gbe, "5gbe"},
    {LinkKind::k2_5gbe, "2.5gbe"},
    {LinkKind::k1gbe, "1gbe"},
    {LinkKind::kWifi, "wifi"},
}};

}  // namespace

const char* link_kind_name(LinkKind kind) {
  for (const auto& k : kKinds) {
    if (k.kind == kind) return k.name;
  }
  return "?";
}

std::optional<LinkKind> parse_link_kind(std::string_view name) {
  for (const auto& k : kKinds) {
    if (name == k.name) return k.kind;
  }
  return std::nullopt;
}

bool is_thunderbolt(LinkKind kind) {
  return kind == LinkKind::kTb5 || kind == LinkKind::kTb4 || kind == LinkKind::kTb3;
}

bool is_infiniband(LinkKind kind) {
  return kind == LinkKind::kIbNdr || kind == LinkKind::kIbHdr;
}

LinkKind ethernet_kind_for_speed(double speed_gbps) {
  if (speed_gbps >= 400) return LinkKind::k400gbe;
  if (speed_gbps >= 200) return LinkKind::k200gbe;
  if (speed_gbps >= 100) return LinkKind::k100gbe;
  if (speed_gbps >= 25) return LinkKind::k25gbe;
  if (speed_gbps >= 10) return LinkKind::k10gbe;
  if (speed_gbps >= 5) return LinkKind::k5gbe;
  if (speed_gbps >= 2.5) return LinkKind::k2_5gbe;
  return LinkKind::k1gbe;
}

std::string link_kind_names() {
  std::string out;
  for (const auto& k : kKinds) {
    if (!out.empty()) out += ", ";
    out += k.name;
  }
  return out;
}

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
         findings == o.findings && generators == o.generators;
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
