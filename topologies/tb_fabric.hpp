// The Thunderbolt cabling of a cluster in the order mlx.distributed_config works in: each host's
// ports sorted by interface name as strings ("en10" before "en2"), hosts in file order, cables
// between two hosts ordered by the lower-index host's sorted ports. That order decides which
// cable is "the first" between a pair (its rdma device goes into a jaccl hostfile) and which /30
// each cable gets. Only semantic fields are used: never the order of cables in the file.
#pragma once

#include <string>
#include <vector>

#include "lib/cluster/cluster.hpp"
#include "lib/cluster/link_graph.hpp"
#include "topologies/ring_search.hpp"

namespace meshplan {

struct FabricEnd {
  size_t host = 0;
  std::string port;       // receptacle id
  std::string interface;  // "" when unknown
  std::string rdma_device;
  int generation = 0;
};

struct FabricCable {
  size_t index = 0;  // into cluster.cables
  FabricEnd lo;      // end on the lower-index host
  FabricEnd hi;
  LinkKind kind = LinkKind::kTb5;
  double speed_gbps = 0;
  bool rdma = false;  // the cable can carry RDMA (TB5, both ports TB5, rdma on); hosts aside
  std::string no_rdma_reason;  // why not, when !rdma

  const FabricEnd& end(size_t host) const { return host == lo.host ? lo : hi; }
  const FabricEnd& other(size_t host) const { return host == lo.host ? hi : lo; }
};

struct FabricPort {
  std::string id;
  std::string interface;
  std::string rdma_device;
  int generation = 0;
  int cable = -1;    // index into TbFabric::cables(), -1 when nothing is cabled to another host
  std::string busy;  // why the port is taken although no cable to a host is known, or ""
  bool tb5() const { return generation == 0 || generation >= 5; }
};

class TbFabric {
 public:
  TbFabric(const Cluster& cluster, const LinkGraph& graph);

  const Cluster& cluster() const { return cluster_; }
  size_t size() const { return ports_.size(); }
  // Thunderbolt cables between two different hosts, in MLX's address-assignment order.
  const std::vector<FabricCable>& cables() const { return cables_; }
  // Cables between a and b in MLX order; rdma_only keeps those that can carry RDMA.
  std::vector<const FabricCable*> between(size_t a, size_t b, bool rdma_only = false) const;
  size_t count(size_t a, size_t b, bool rdma_only = false) const {
    return between(a, b, rdma_only).size();
  }
  // A host's ports sorted as MLX sorts them (interface name as a string).
  const std::vector<FabricPort>& ports(size_t host) const { return ports_[host]; }
  // Ports with nothing plugged in, lowest receptacle first; tb5_only keeps Thunderbolt 5 ones.
  std::vector<const FabricPort*> free_ports(size_t host, bool tb5_only = false) const;
  // Thunderbolt 5 ports a host has (known or assumed), for port budgets.
  size_t tb5_port_count(size_t host) const;
  // The cable graph over `members` (host indices); vertex k of the result is members[k].
  Adjacency adjacency(const std::vector<size_t>& members, bool rdma_only) const;
  // Cables from one port to another port of the same host: they carry nothing.
  const std::vector<size_t>& loop_cables() const { return loops_; }

 private:
  const Cluster& cluster_;
  std::vector<std::vector<FabricPort>> ports_;
  std::vector<FabricCable> cables_;
  std::vector<std::vector<size_t>> host_cables_;  // per host: its cables, ascending
  std::vector<size_t> loops_;
};

// "Thunderbolt 5 (80 Gb/s)" style description of a cable's kind, for messages.
std::string cable_kind_text(const FabricCable& cable);
// "mac-a port 1 (en2)".
std::string end_text(const Cluster& cluster, const FabricEnd& end);

}  // namespace meshplan
