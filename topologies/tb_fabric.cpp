#include "topologies/tb_fabric.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <utility>

namespace meshplan {
namespace {

// Receptacle ids are small numbers; compare them as numbers when they are.
bool id_less(const std::string& a, const std::string& b) {
  bool na = !a.empty() && std::all_of(a.begin(), a.end(), ::isdigit);
  bool nb = !b.empty() && std::all_of(b.begin(), b.end(), ::isdigit);
  if (na && nb && a.size() != b.size()) return a.size() < b.size();
  return a < b;
}

FabricPort make_port(const ThunderboltPort& p) {
  FabricPort f;
  f.id = p.id;
  f.interface = p.interface;
  f.rdma_device =
      !p.rdma_device.empty() ? p.rdma_device : (p.interface.empty() ? "" : "rdma_" + p.interface);
  f.generation = p.generation;
  return f;
}

using PortLists = std::vector<std::vector<FabricPort>>;  // per host

// The Thunderbolt cables between listed hosts, in pair order; a cable end the file names no
// port for gets a port entry in PORTS.
std::vector<FabricCable> thunderbolt_cables(const Cluster& cluster, const LinkGraph& graph,
                                            PortLists& ports) {
  std::vector<FabricCable> cables;
  // The end of a cable on host h, adding a port entry when the file names none.
  auto end_of = [&](size_t h, const std::string& port) {
    FabricEnd e;
    e.host = h;
    e.port = port;
    auto it = std::find_if(ports[h].begin(), ports[h].end(),
                           [&](const FabricPort& p) { return p.id == port; });
    if (it == ports[h].end() || port.empty()) {
      FabricPort p;
      p.id = port;
      ports[h].push_back(p);
      it = ports[h].end() - 1;
    }
    e.interface = it->interface;
    e.rdma_device = it->rdma_device;
    e.generation = it->generation;
    return e;
  };

  // Pairs joined by a cable, in (a, b) order: walking every pair would be n² on large clusters.
  std::vector<std::pair<size_t, size_t>> pairs;
  for (auto [e, end] = boost::edges(graph.graph()); e != end; ++e) {
    size_t u = boost::source(*e, graph.graph()), v = boost::target(*e, graph.graph());
    if (u != v) pairs.push_back(std::minmax(u, v));
  }
  std::sort(pairs.begin(), pairs.end());
  pairs.erase(std::unique(pairs.begin(), pairs.end()), pairs.end());
  for (auto [a, b] : pairs) {
    for (const LinkFigures& l : graph.links(a, b)) {
      if (l.cable < 0 || !l.thunderbolt) continue;
      const Cable& c = cluster.cables[static_cast<size_t>(l.cable)];
      bool a_first = c.a.host == cluster.hosts[a].name;
      FabricCable f;
      f.index = static_cast<size_t>(l.cable);
      f.lo = end_of(a, a_first ? c.a.port : c.b.port);
      f.hi = end_of(b, a_first ? c.b.port : c.a.port);
      f.kind = c.kind;
      f.speed_gbps = c.speed_gbps;
      f.rdma = l.rdma_cable;
      if (!f.rdma) {
        if (c.kind != LinkKind::kTb5)
          f.no_rdma_reason =
              fmt::format("it is a {} link; RDMA needs Thunderbolt 5", cable_kind_text(f));
        else if (f.lo.generation && f.lo.generation < 5)
          f.no_rdma_reason =
              fmt::format("{} is a Thunderbolt {} port", end_text(cluster, f.lo), f.lo.generation);
        else if (f.hi.generation && f.hi.generation < 5)
          f.no_rdma_reason =
              fmt::format("{} is a Thunderbolt {} port", end_text(cluster, f.hi), f.hi.generation);
        else
          f.no_rdma_reason = "the cable is not marked rdma (RDMA was not seen on it)";
      }
      cables.push_back(std::move(f));
    }
  }
  return cables;
}

// MLX sorts each host's ports by interface name; ports without one go last. The cables follow
// their first end's port, and each port learns its cable's index.
void sort_in_mlx_order(PortLists& ports, std::vector<FabricCable>& cables) {
  const size_t n = ports.size();
  for (auto& list : ports) {
    std::stable_sort(list.begin(), list.end(), [](const FabricPort& x, const FabricPort& y) {
      if (x.interface.empty() != y.interface.empty()) return y.interface.empty();
      if (x.interface != y.interface) return x.interface < y.interface;
      return id_less(x.id, y.id);
    });
  }
  // Position of each cable's end in its host's sorted list (ports without an id: in cable order).
  std::map<size_t, size_t> lo_position;
  std::vector<std::vector<char>> taken(n);
  for (size_t h = 0; h < n; ++h)
    taken[h].assign(ports[h].size(), 0);
  auto position = [&](const FabricEnd& e) {
    for (size_t i = 0; i < ports[e.host].size(); ++i) {
      if (ports[e.host][i].id == e.port && !taken[e.host][i]) {
        taken[e.host][i] = 1;
        return i;
      }
    }
    return ports[e.host].size();
  };
  std::sort(cables.begin(), cables.end(),
            [](const FabricCable& x, const FabricCable& y) { return x.index < y.index; });
  std::vector<size_t> hi_position(cables.size());
  for (size_t i = 0; i < cables.size(); ++i) {
    lo_position[cables[i].index] = position(cables[i].lo);
    hi_position[i] = position(cables[i].hi);
  }
  std::vector<size_t> order(cables.size());
  for (size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) {
    const FabricCable &cx = cables[x], &cy = cables[y];
    if (cx.lo.host != cy.lo.host) return cx.lo.host < cy.lo.host;
    return lo_position[cx.index] < lo_position[cy.index];
  });
  std::vector<FabricCable> sorted;
  for (size_t i : order) {
    sorted.push_back(cables[i]);
    size_t k = sorted.size() - 1;
    size_t lp = lo_position[cables[i].index], hp = hi_position[i];
    if (lp < ports[cables[i].lo.host].size())
      ports[cables[i].lo.host][lp].cable = static_cast<int>(k);
    if (hp < ports[cables[i].hi.host].size())
      ports[cables[i].hi.host][hp].cable = static_cast<int>(k);
  }
  cables = std::move(sorted);
}

// A port with no cable to a listed host may still hold something (a drive, a Mac not listed).
void mark_busy_ports(const Cluster& cluster, const std::vector<size_t>& loops, PortLists& ports) {
  const size_t n = ports.size();
  for (size_t h = 0; h < n; ++h) {
    const Host& host = cluster.hosts[h];
    for (auto& p : ports[h]) {
      if (p.cable >= 0) continue;
      const ThunderboltPort* tp = host.find_port(p.id);
      if (tp && tp->speed_gbps > 0)
        p.busy = fmt::format("something is connected to it at {} Gb/s", tp->speed_gbps);
      for (const auto& f : cluster.findings)
        if (f.host == host.name && !f.port.empty() && f.port == p.id)
          p.busy = f.message.empty() ? fmt::format("discovery reported {}", f.kind) : f.message;
      for (size_t c : loops) {
        const Cable& cable = cluster.cables[c];
        if (cable.a.host == host.name && (cable.a.port == p.id || cable.b.port == p.id))
          p.busy = "a cable joins it to another port of the same host";
      }
    }
  }
}

}  // namespace

TbFabric::TbFabric(const Cluster& cluster, const LinkGraph& graph)
    : cluster_(cluster), ports_(cluster.hosts.size()) {
  const size_t n = cluster.hosts.size();
  for (size_t h = 0; h < n; ++h)
    for (const auto& p : cluster.hosts[h].ports)
      ports_[h].push_back(make_port(p));

  cables_ = thunderbolt_cables(cluster, graph, ports_);
  for (size_t c = 0; c < cluster.cables.size(); ++c)
    if (cluster.cables[c].a.host == cluster.cables[c].b.host &&
        is_thunderbolt(cluster.cables[c].kind))
      loops_.push_back(c);

  sort_in_mlx_order(ports_, cables_);
  host_cables_.assign(n, {});
  for (size_t k = 0; k < cables_.size(); ++k) {
    host_cables_[cables_[k].lo.host].push_back(k);
    if (cables_[k].hi.host != cables_[k].lo.host) host_cables_[cables_[k].hi.host].push_back(k);
  }

  mark_busy_ports(cluster, loops_, ports_);
}

std::vector<const FabricCable*> TbFabric::between(size_t a, size_t b, bool rdma_only) const {
  // Through a's cables (a few, in MLX order), not every cable: checks ask this for many pairs.
  std::vector<const FabricCable*> out;
  size_t lo = std::min(a, b), hi = std::max(a, b);
  for (size_t k : host_cables_[a]) {
    const FabricCable& c = cables_[k];
    if (c.lo.host == lo && c.hi.host == hi && (!rdma_only || c.rdma)) out.push_back(&c);
  }
  return out;
}

std::vector<const FabricPort*> TbFabric::free_ports(size_t host, bool tb5_only) const {
  std::vector<const FabricPort*> out;
  for (const auto& p : ports_[host])
    if (p.cable < 0 && p.busy.empty() && !p.id.empty() && (!tb5_only || p.tb5())) out.push_back(&p);
  std::sort(out.begin(), out.end(),
            [](const FabricPort* x, const FabricPort* y) { return id_less(x->id, y->id); });
  return out;
}

size_t TbFabric::tb5_port_count(size_t host) const {
  size_t n = 0;
  for (const auto& p : ports_[host])
    n += !p.id.empty() && p.tb5();
  return n;
}

Adjacency TbFabric::adjacency(const std::vector<size_t>& members, bool rdma_only) const {
  Adjacency g(members.size());
  std::vector<int> at(size(), -1);  // host -> its position in members
  for (size_t i = 0; i < members.size(); ++i)
    at[members[i]] = static_cast<int>(i);
  for (const auto& c : cables_) {
    int i = at[c.lo.host], j = at[c.hi.host];
    if (i < 0 || j < 0 || (rdma_only && !c.rdma)) continue;
    g[static_cast<size_t>(i)].push_back(static_cast<size_t>(j));
    g[static_cast<size_t>(j)].push_back(static_cast<size_t>(i));
  }
  for (auto& n : g) {  // each neighbour once, ascending, as before
    std::sort(n.begin(), n.end());
    n.erase(std::unique(n.begin(), n.end()), n.end());
  }
  return g;
}

std::string cable_kind_text(const FabricCable& cable) {
  std::string kind = cable.kind == LinkKind::kTb5   ? "Thunderbolt 5"
                     : cable.kind == LinkKind::kTb4 ? "Thunderbolt 4"
                                                    : "Thunderbolt 3";
  if (cable.speed_gbps > 0) kind += fmt::format(" ({} Gb/s)", cable.speed_gbps);
  return kind;
}

std::string end_text(const Cluster& cluster, const FabricEnd& end) {
  const std::string& host = cluster.hosts[end.host].name;
  if (end.port.empty()) return host;
  if (end.interface.empty()) return fmt::format("{} port {}", host, end.port);
  return fmt::format("{} port {} ({})", host, end.port, end.interface);
}

}  // namespace meshplan
