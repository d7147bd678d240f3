#include "solvers/serving/replica_kinds.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <tuple>

namespace meshplan {
namespace {

// The host as a plan reads it beyond its figures: everything but its name, how to reach it and
// its addresses and serial numbers (interfaces keep their names and kinds, which launches and
// notes print).
Host without_identity(const Host& h) {
  Host x = h;
  x.name.clear();
  x.ssh.clear();
  for (NetInterface& i : x.interfaces) {
    i.ipv4.clear();
    i.mac.clear();
  }
  for (Gpu& g : x.gpus)
    g.uuid.clear();
  for (ThunderboltPort& p : x.ports) {
    p.domain_uuid.clear();
    p.ipv4.clear();
  }
  if (x.thunderbolt_bridge) x.thunderbolt_bridge->ipv4.clear();
  return x;
}

}  // namespace

GroupKinds::GroupKinds(const Cluster& cluster, const std::vector<std::string>& hosts)
    : kind_(hosts.size(), -1), machine_(hosts.size(), -1), cables_(hosts.size()) {
  std::map<std::string, size_t> index;
  for (size_t i = 0; i < hosts.size(); ++i)
    index[hosts[i]] = i;
  // A cable as seen from one end: this end's port and interface, the other's, and its figures.
  std::map<std::string, int> cable_kinds;
  std::vector<std::vector<int>> own(hosts.size());  // every cable of a host, by kind
  auto end_kind = [&](const Endpoint& mine, const Endpoint& theirs, const Cable& c) {
    const std::string text = fmt::format(
        "{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}", mine.port, mine.interface, theirs.port,
        theirs.interface, static_cast<int>(c.kind), c.speed_gbps, c.rdma, c.latency_us.value_or(-1),
        c.bandwidth_gbps.value_or(-1), c.round_trip_us.value_or(-1), c.measured);
    return cable_kinds.emplace(text, static_cast<int>(cable_kinds.size())).first->second;
  };
  for (const Cable& c : cluster.cables) {
    const auto a = index.find(c.a.host), b = index.find(c.b.host);
    if (a != index.end()) own[a->second].push_back(end_kind(c.a, c.b, c));
    if (b != index.end()) own[b->second].push_back(end_kind(c.b, c.a, c));
    if (a != index.end() && b != index.end()) {
      cables_[a->second].push_back({b->second, end_kind(c.a, c.b, c)});
      cables_[b->second].push_back({a->second, end_kind(c.b, c.a, c)});
    }
  }
  // A host's kind: what the file says of it, its networks and its cables.
  using Kind = std::tuple<Host, std::vector<size_t>, std::vector<int>>;
  std::vector<Kind> kinds;
  std::vector<std::pair<Host, std::vector<size_t>>> machines;
  for (size_t i = 0; i < hosts.size(); ++i) {
    const Host* h = cluster.find_host(hosts[i]);
    std::vector<size_t> networks;
    for (size_t k = 0; k < cluster.networks.size(); ++k)
      if (cluster.networks[k].contains(hosts[i])) networks.push_back(k);
    std::sort(own[i].begin(), own[i].end());
    std::sort(cables_[i].begin(), cables_[i].end());
    Kind k{h ? without_identity(*h) : Host{}, networks, own[i]};
    std::pair<Host, std::vector<size_t>> machine{std::get<0>(k), networks};
    auto it = std::find(kinds.begin(), kinds.end(), k);
    kind_[i] = static_cast<int>(it - kinds.begin());
    if (it == kinds.end()) kinds.push_back(std::move(k));
    auto m = std::find(machines.begin(), machines.end(), machine);
    machine_[i] = static_cast<int>(m - machines.begin());
    if (m == machines.end()) machines.push_back(std::move(machine));
  }
}

std::vector<std::vector<size_t>> GroupKinds::islands() const {
  std::vector<std::vector<size_t>> out;
  std::vector<bool> seen(kind_.size(), false);
  for (size_t start = 0; start < kind_.size(); ++start) {
    if (seen[start] || cables_[start].empty()) continue;
    std::vector<size_t> island{start};
    seen[start] = true;
    for (size_t i = 0; i < island.size(); ++i)
      for (const auto& [other, kind] : cables_[island[i]])
        if (!seen[other]) {
          seen[other] = true;
          island.push_back(other);
        }
    std::sort(island.begin(), island.end());
    out.push_back(std::move(island));
  }
  return out;
}

std::vector<int> GroupKinds::key(const std::vector<size_t>& members) const {
  std::vector<int> out{static_cast<int>(members.size())};
  for (size_t m : members)
    out.push_back(kind_[m]);
  // Then each cable between members: the positions of its ends and its kind from the first.
  for (size_t p = 0; p < members.size(); ++p)
    for (const auto& [other, kind] : cables_[members[p]]) {
      const auto at = std::lower_bound(members.begin(), members.end(), other);
      if (at == members.end() || *at != other) continue;
      out.push_back(static_cast<int>(p));
      out.push_back(static_cast<int>(at - members.begin()));
      out.push_back(kind);
    }
  return out;
}

}  // namespace meshplan
