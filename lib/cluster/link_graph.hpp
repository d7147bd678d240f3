// The link graph of a cluster (Boost.Graph): one vertex per host, one edge per cable and per
// pair of hosts sharing a network, each with the latency and bandwidth an engine sees on it
// (SPEC section 7 defaults, per-link overrides). Answers "what is the best link between a and b".
#pragma once

#include <boost/graph/adjacency_list.hpp>
#include <optional>
#include <string>
#include <vector>

#include "lib/cluster/catalog.hpp"
#include "lib/cluster/cluster.hpp"

namespace meshplan {

struct LinkFigures {
  std::string name;  // "tb5-rdma", "tb5", "tb4", "10gbe", ...
  LinkKind kind = LinkKind::k10gbe;
  bool rdma = false;  // usable RDMA: TB5 cable, rdma on the cable, RDMA enabled on both hosts
  bool thunderbolt = false;
  double latency_s = 0;
  double bandwidth = 0;      // bytes/s
  double tcp_latency_s = 0;  // the same link used over TCP (differs from the above for RDMA)
  double tcp_bandwidth = 0;
  // A small request's round trip between processes over TCP, measured by calibrate (0: not
  // measured; twice tcp_latency_s stands for it).
  double round_trip_s = 0;
  int cable = -1;           // index into cluster.cables, or -1
  int network = -1;         // index into cluster.networks, or -1
  double speed_gbps = 0;    // the cable's link speed, 0 when unknown
  int generation = 0;       // Thunderbolt: the lower generation of the two ports (0 unknown)
  bool rdma_cable = false;  // the cable itself can carry RDMA (TB5 ports, rdma on), hosts aside
  // RoCE or InfiniBand RDMA on a network cable or a shared network, as the file says (what NCCL
  // uses). Not `rdma`, which is RDMA over Thunderbolt 5 for MLX (JACCL) and the kRdma transport.
  bool fabric_rdma = false;

  // One-way time to move `bytes`.
  double hop_time(double bytes) const { return latency_s + bytes / bandwidth; }
  // What one RPC call costs on it beyond its data: the measured round trip, else twice the TCP
  // latency.
  double call_round_trip_s() const { return round_trip_s > 0 ? round_trip_s : 2 * tcp_latency_s; }
  bool operator==(const LinkFigures&) const = default;
};

// Which links a backend may use.
enum class Transport {
  kAny,          // the fastest link of any kind
  kTcp,          // Thunderbolt as TCP (no RDMA) or a network
  kThunderbolt,  // MLX ring: Thunderbolt cables as TCP only (its hostfile lists their addresses)
  kRdma,         // JACCL: RDMA-capable TB5 cables only
  kNetwork,      // Ethernet / Wi-Fi networks only
};

// `link` as `transport` uses it (an RDMA cable over TCP has its TCP figures), or none when the
// transport may not use it.
std::optional<LinkFigures> as_used(LinkFigures link, Transport transport);

Transport transport_for_backend(std::string_view backend);  // "auto", "ring", "jaccl", ...
// A plan's transport: "rdma", "thunderbolt", "network"; anything else is kAny.
Transport transport_named(std::string_view transport);

class LinkGraph {
 public:
  struct VertexProps {
    std::string name;
  };
  struct EdgeProps {
    LinkFigures link;
  };
  using Graph =
      boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS, VertexProps, EdgeProps>;

  LinkGraph(const Cluster& cluster, const Catalog& catalog);

  // The cables; shared networks are kept by membership, not as an edge per pair of hosts.
  const Graph& graph() const { return graph_; }
  size_t size() const { return boost::num_vertices(graph_); }
  const std::string& name(size_t v) const { return graph_[v].name; }
  // Every link between hosts a and b (parallel cables each count).
  std::vector<LinkFigures> links(size_t a, size_t b) const;
  // The link with the smallest hop time for `message_bytes` that `transport` allows, if any.
  std::optional<LinkFigures> best(size_t a, size_t b, Transport transport,
                                  double message_bytes) const;
  // The networks, by index into cluster.networks, and the ones host `v` is on (ascending).
  size_t network_count() const { return networks_.size(); }
  const LinkFigures& network(size_t n) const { return networks_[n]; }
  const std::vector<int>& networks_of(size_t v) const { return host_networks_[v]; }

 private:
  Graph graph_;
  std::vector<LinkFigures> networks_;            // per network of the cluster
  std::vector<std::vector<int>> host_networks_;  // per host: the networks it is on, ascending
};

// The figures of one cable / network as the catalog and the overrides give them.
LinkFigures cable_figures(const Cluster& cluster, size_t cable_index, const Catalog& catalog);
LinkFigures network_figures(const Cluster& cluster, size_t network_index, const Catalog& catalog);

}  // namespace meshplan
