#include "lib/cluster/generators.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "lib/cluster/cluster_reader.hpp"
#include "lib/core/error.hpp"

namespace meshplan {
namespace {

using PortKey = std::pair<std::string, std::string>;  // host, port id

std::set<PortKey> used_ports(const Cluster& cluster) {
  std::set<PortKey> used;
  for (const auto& c : cluster.cables) {
    if (!c.a.port.empty()) used.insert({c.a.host, c.a.port});
    if (!c.b.port.empty()) used.insert({c.b.host, c.b.port});
  }
  return used;
}

std::string machine_label(const Host& h, const Catalog& catalog) {
  const MachineSpec* m = host_machine(h, catalog);
  return m ? fmt::format("{} ({})", h.name, m->name) : h.name;
}

// The lowest free receptacle of `host` that can carry `kind`; throws with the budget otherwise.
std::string take_port(const Host& host, LinkKind kind, std::set<PortKey>& used,
                      const Catalog& catalog, const std::string& where, const std::string& need) {
  if (host.ports.empty()) {
    throw input_error(
        "{}: host {} has no known Thunderbolt ports; give it a machine (e.g. mac-studio-m3-ultra), "
        "a chip or a ports list",
        where, host.name);
  }
  for (const auto& p : host.ports) {
    if (used.count({host.name, p.id})) continue;
    if (kind == LinkKind::kTb5 && p.generation != 0 && p.generation < 5) {
      throw input_error(
          "{}: kind tb5 needs Thunderbolt 5 ports, but {} has Thunderbolt {} ports; use kind tb4",
          where, machine_label(host, catalog), p.generation);
    }
    used.insert({host.name, p.id});
    return p.id;
  }
  size_t in_use = 0;
  for (const auto& p : host.ports)
    in_use += used.count({host.name, p.id});
  throw input_error("{}: {}; {} has {} Thunderbolt port{}{}", where, need,
                    machine_label(host, catalog), host.ports.size(),
                    host.ports.size() == 1 ? "" : "s",
                    in_use == host.ports.size() ? ", all already cabled" : "");
}

void check_generation(const Host& host, const std::string& port_id, LinkKind kind,
                      const Catalog& catalog, const std::string& where) {
  const ThunderboltPort* p = host.find_port(port_id);
  if (p && kind == LinkKind::kTb5 && p->generation != 0 && p->generation < 5) {
    throw input_error("{}: kind tb5 needs Thunderbolt 5 ports, but port {} of {} is Thunderbolt {}",
                      where, port_id, machine_label(host, catalog), p->generation);
  }
}

// A `switch` generator: the network it stands for, of NAMES (none listed when all_hosts).
Network switch_network(const GeneratorSpec& g, const std::vector<std::string>& names) {
  if (is_thunderbolt(g.kind))
    throw input_error("{}: topology switch needs a network kind (e.g. 10gbe), not {}", g.where,
                      link_kind_name(g.kind));
  Network net;
  net.kind = g.kind;
  net.all_hosts = g.all_hosts;
  net.hosts = g.all_hosts ? std::vector<std::string>{} : names;
  net.subnet = g.subnet;
  net.rdma = g.rdma;
  net.latency_us = g.latency_us;
  net.bandwidth_gbps = g.bandwidth_gbps;
  return net;
}

// Explicit Thunderbolt cables without ports get free ones too; given ports must fit the kind.
void give_cables_ports(Cluster& cluster, const Catalog& catalog, std::set<PortKey>& used) {
  for (auto& c : cluster.cables) {
    if (!is_thunderbolt(c.kind)) continue;
    for (Endpoint* e : {&c.a, &c.b}) {
      const Host& h = *cluster.find_host(e->host);
      if (e->port.empty() && !h.ports.empty()) {
        e->port =
            take_port(h, c.kind, used, catalog, fmt::format("cable {} - {}", c.a.host, c.b.host),
                      fmt::format("cable {} - {} needs a free Thunderbolt port on {}", c.a.host,
                                  c.b.host, h.name));
      } else if (!e->port.empty()) {
        check_generation(
            h, e->port, c.kind, catalog,
            fmt::format("cable {}:{} - {}:{}", c.a.host, c.a.port, c.b.host, c.b.port));
      }
    }
  }
}

}  // namespace

std::vector<std::pair<size_t, size_t>> generator_pairs(const std::string& topology, size_t n,
                                                       size_t center) {
  std::vector<std::pair<size_t, size_t>> pairs;
  if (topology == "full-mesh") {
    for (size_t i = 0; i < n; ++i)
      for (size_t j = i + 1; j < n; ++j)
        pairs.emplace_back(i, j);
  } else if (topology == "chain" || topology == "ring") {
    for (size_t i = 0; i + 1 < n; ++i)
      pairs.emplace_back(i, i + 1);
    // Two hosts joined once already form the smallest ring (MLX treats it so).
    if (topology == "ring" && n >= 3) pairs.emplace_back(n - 1, 0);
  } else if (topology == "star") {
    for (size_t i = 0; i < n; ++i)
      if (i != center) pairs.emplace_back(center, i);
  }
  return pairs;
}

void expand_generators(Cluster& cluster, const Catalog& catalog) {
  std::set<PortKey> used = used_ports(cluster);
  size_t inserted = 0;  // generated cables go where their generator stood in the file
  for (const auto& g : cluster.generators) {
    std::vector<std::string> names = g.hosts;
    if (g.all_hosts) {
      names.clear();
      for (const auto& h : cluster.hosts)
        names.push_back(h.name);
    }
    if (g.topology == "switch") {
      cluster.networks.push_back(switch_network(g, names));
      continue;
    }
    size_t center = 0;
    if (!g.center.empty()) {
      auto it = std::find(names.begin(), names.end(), g.center);
      if (it == names.end())
        throw input_error("{}: center {} is not among the topology's hosts", g.where, g.center);
      center = static_cast<size_t>(it - names.begin());
    }
    if (names.size() < 2)
      throw input_error("{}: topology {} needs at least two hosts", g.where, g.topology);
    auto pairs = generator_pairs(g.topology, names.size(), center);
    // Ports each host needs for this topology, for the budget message.
    std::map<size_t, size_t> degree;
    for (auto [a, b] : pairs) {
      ++degree[a];
      ++degree[b];
    }
    for (auto [ia, ib] : pairs) {
      Cable c;
      c.kind = g.kind;
      c.speed_gbps = catalog.default_speed_gbps(g.kind);
      c.rdma = g.rdma;
      c.latency_us = g.latency_us;
      c.bandwidth_gbps = g.bandwidth_gbps;
      c.a.host = names[ia];
      c.b.host = names[ib];
      if (is_thunderbolt(g.kind)) {
        for (auto [idx, end] : {std::pair{ia, &c.a}, std::pair{ib, &c.b}}) {
          const Host& h = *cluster.find_host(names[idx]);
          std::string need =
              g.topology == "full-mesh"
                  ? fmt::format("a full mesh of {} needs {} Thunderbolt ports per host",
                                names.size(), names.size() - 1)
                  : fmt::format("a {} of {} hosts needs {} Thunderbolt port{} on {}", g.topology,
                                names.size(), degree[idx], degree[idx] == 1 ? "" : "s", h.name);
          end->port = take_port(h, g.kind, used, catalog, g.where, need);
        }
      }
      // RDMA over Thunderbolt is switched on per Mac (rdma_ctl); RoCE and InfiniBand are not.
      if (g.rdma && g.kind == LinkKind::kTb5) {
        for (const auto& name : {c.a.host, c.b.host}) {
          Host* h = cluster.find_host(name);
          if (!h->rdma_enabled) h->rdma_enabled = true;
        }
      }
      cluster.cables.insert(
          cluster.cables.begin() + static_cast<std::ptrdiff_t>(g.position + inserted),
          std::move(c));
      ++inserted;
    }
  }
  cluster.generators.clear();
  give_cables_ports(cluster, catalog, used);
}

}  // namespace meshplan
