#include "lib/cluster/link_graph.hpp"

#include <algorithm>

#include "lib/cluster/mlx_backend.hpp"
#include "lib/core/error.hpp"

namespace meshplan {
namespace {

bool host_rdma_ok(const Host* h) {
  return h && h->rdma_enabled.value_or(false);
}

bool port_is_tb5(const Host* h, const std::string& port) {
  if (!h || port.empty()) return true;  // unknown port: trust the cable kind
  const ThunderboltPort* p = h->find_port(port);
  return !p || p->generation == 0 || p->generation >= 5;
}

int port_generation(const Host* h, const std::string& port) {
  const ThunderboltPort* p = h && !port.empty() ? h->find_port(port) : nullptr;
  return p ? p->generation : 0;
}

bool allowed(const LinkFigures& l, Transport t) {
  switch (t) {
    case Transport::kAny:
      return true;
    case Transport::kTcp:
      return !l.rdma || l.thunderbolt;  // an RDMA cable still carries TCP
    case Transport::kThunderbolt:
      return l.thunderbolt;
    case Transport::kRdma:
      return l.rdma;
    case Transport::kNetwork:  // a shared network, or a direct Ethernet/InfiniBand cable
      return l.network >= 0 || (l.cable >= 0 && !l.thunderbolt);
  }
  return false;
}

}  // namespace

Transport transport_for_backend(std::string_view backend) {
  switch (find_mlx_backend(backend).value_or(MlxBackend::kAuto)) {
    case MlxBackend::kRing:
      return Transport::kThunderbolt;
    case MlxBackend::kJaccl:
    case MlxBackend::kJacclRing:
      return Transport::kRdma;
    case MlxBackend::kEthernet:
      return Transport::kNetwork;
    default:
      return Transport::kAny;
  }
}

Transport transport_named(std::string_view transport) {
  if (transport == "rdma") return Transport::kRdma;
  if (transport == "thunderbolt") return Transport::kThunderbolt;
  if (transport == "network") return Transport::kNetwork;
  return Transport::kAny;
}

LinkFigures cable_figures(const Cluster& cluster, size_t cable_index, const Catalog& catalog) {
  const Cable& c = cluster.cables[cable_index];
  const Host* a = cluster.find_host(c.a.host);
  const Host* b = cluster.find_host(c.b.host);
  LinkFigures f;
  f.kind = c.kind;
  f.thunderbolt = is_thunderbolt(c.kind);
  f.rdma = c.kind == LinkKind::kTb5 && c.rdma && host_rdma_ok(a) && host_rdma_ok(b) &&
           port_is_tb5(a, c.a.port) && port_is_tb5(b, c.b.port);
  const LinkDefaults& d = catalog.link_defaults(c.kind, f.rdma);
  f.name = link_figures_name(c.kind, f.rdma);
  f.latency_s = c.latency_us ? *c.latency_us * 1e-6 : d.latency_s;
  f.bandwidth = c.bandwidth_gbps ? *c.bandwidth_gbps * 1e9 / 8 : d.bandwidth;
  // A measured round trip stands for the latency where none was measured: half of it each way.
  if (c.round_trip_us && !c.latency_us && !f.rdma) f.latency_s = *c.round_trip_us * 0.5e-6;
  f.tcp_latency_s = f.latency_s;
  f.tcp_bandwidth = f.bandwidth;
  if (f.rdma) {
    const LinkDefaults& tcp = catalog.link_defaults(c.kind, false);
    f.tcp_latency_s = c.round_trip_us ? *c.round_trip_us * 0.5e-6 : tcp.latency_s;
    f.tcp_bandwidth = tcp.bandwidth;
  }
  if (c.round_trip_us) f.round_trip_s = *c.round_trip_us * 1e-6;
  f.cable = static_cast<int>(cable_index);
  f.speed_gbps = c.speed_gbps;
  if (f.thunderbolt) {
    int ga = port_generation(a, c.a.port), gb = port_generation(b, c.b.port);
    f.generation = ga && gb ? std::min(ga, gb) : std::max(ga, gb);
  }
  f.rdma_cable =
      c.kind == LinkKind::kTb5 && c.rdma && port_is_tb5(a, c.a.port) && port_is_tb5(b, c.b.port);
  f.fabric_rdma = !f.thunderbolt && c.rdma;
  return f;
}

LinkFigures network_figures(const Cluster& cluster, size_t network_index, const Catalog& catalog) {
  const Network& n = cluster.networks[network_index];
  LinkFigures f;
  f.kind = n.kind;
  f.name = link_kind_name(n.kind);
  const LinkDefaults& d = catalog.link_defaults(n.kind, false);
  f.latency_s = n.latency_us ? *n.latency_us * 1e-6 : d.latency_s;
  f.bandwidth = n.bandwidth_gbps ? *n.bandwidth_gbps * 1e9 / 8 : d.bandwidth;
  f.tcp_latency_s = f.latency_s;
  f.tcp_bandwidth = f.bandwidth;
  f.network = static_cast<int>(network_index);
  f.fabric_rdma = n.rdma;
  return f;
}

LinkGraph::LinkGraph(const Cluster& cluster, const Catalog& catalog)
    : graph_(cluster.hosts.size()) {
  for (size_t i = 0; i < cluster.hosts.size(); ++i)
    graph_[i].name = cluster.hosts[i].name;
  for (size_t c = 0; c < cluster.cables.size(); ++c) {
    int a = cluster.host_index(cluster.cables[c].a.host);
    int b = cluster.host_index(cluster.cables[c].b.host);
    if (a < 0 || b < 0) throw internal_error("cable to an unknown host");
    boost::add_edge(static_cast<size_t>(a), static_cast<size_t>(b),
                    EdgeProps{cable_figures(cluster, c, catalog)}, graph_);
  }
  host_networks_.resize(cluster.hosts.size());
  for (size_t n = 0; n < cluster.networks.size(); ++n) {
    const Network& net = cluster.networks[n];
    networks_.push_back(network_figures(cluster, n, catalog));
    if (net.all_hosts) {
      for (auto& on : host_networks_)
        on.push_back(static_cast<int>(n));
      continue;
    }
    std::vector<size_t> members;
    for (const auto& name : net.hosts)
      if (int h = cluster.host_index(name); h >= 0) members.push_back(static_cast<size_t>(h));
    std::sort(members.begin(), members.end());
    members.erase(std::unique(members.begin(), members.end()), members.end());
    for (size_t h : members)
      host_networks_[h].push_back(static_cast<int>(n));
  }
}

std::vector<LinkFigures> LinkGraph::links(size_t a, size_t b) const {
  std::vector<LinkFigures> out;
  auto [it, end] = boost::out_edges(a, graph_);
  for (; it != end; ++it) {
    if (boost::target(*it, graph_) == b) out.push_back(graph_[*it].link);
  }
  if (a == b) return out;
  const auto& na = host_networks_[a];
  const auto& nb = host_networks_[b];
  for (size_t i = 0, j = 0; i < na.size() && j < nb.size();) {
    if (na[i] < nb[j]) {
      ++i;
    } else if (nb[j] < na[i]) {
      ++j;
    } else {
      out.push_back(networks_[static_cast<size_t>(na[i])]);
      ++i;
      ++j;
    }
  }
  return out;
}

std::optional<LinkFigures> LinkGraph::best(size_t a, size_t b, Transport transport,
                                           double message_bytes) const {
  std::optional<LinkFigures> best;
  for (const LinkFigures& link : links(a, b)) {
    std::optional<LinkFigures> l = as_used(link, transport);
    if (l && (!best || l->hop_time(message_bytes) < best->hop_time(message_bytes))) best = l;
  }
  return best;
}

std::optional<LinkFigures> as_used(LinkFigures l, Transport transport) {
  if (!allowed(l, transport)) return std::nullopt;
  if ((transport == Transport::kTcp || transport == Transport::kThunderbolt) && l.rdma) {
    // The same cable used over TCP: Thunderbolt 5 figures without RDMA.
    l.rdma = false;
    l.name = link_kind_name(l.kind);
    l.latency_s = l.tcp_latency_s;
    l.bandwidth = l.tcp_bandwidth;
  }
  return l;
}

}  // namespace meshplan
