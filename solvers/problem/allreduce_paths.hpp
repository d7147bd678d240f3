// Which groups of hosts can all-reduce, and how (SPEC section 7, tensor and expert parallel):
//   * JACCL mesh: every pair of the group joined by an RDMA cable, at most 8 ranks;
//   * JACCL ring: a cycle through the group over RDMA cables;
//   * TCP ring (MLX ring): a cycle over Thunderbolt used as TCP or a shared network.
// A collective runs at the pace of its slowest link, so for rings the cycle that minimises the
// worst link is chosen: exactly for up to 16 candidate hosts (one bottleneck Held-Karp table
// that answers every subset at once), by a bounded depth-first search beyond.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lib/cluster/backend_limits.hpp"
#include "solvers/problem/plan_inputs.hpp"
#include "solvers/problem/ring_table.hpp"

namespace meshplan {

enum class CollectiveKind { kSingle, kJacclMesh, kJacclRing, kTcpRing };
const char* collective_name(CollectiveKind kind);  // "single host", "JACCL mesh", ...

inline constexpr size_t kExactPathHosts = 16;

struct CollectivePath {
  CollectiveKind kind = CollectiveKind::kSingle;
  std::vector<size_t> order;                     // candidate indices in rank order
  std::vector<std::optional<LinkFigures>> next;  // link from rank r to rank r + 1 (cyclic)
  std::optional<LinkFigures> worst;              // the slowest link the collective uses
  std::string backend = "none";                  // jaccl, jaccl-ring, ring, ethernet, none
  // JACCL mesh: per peer of each exchange (the whole message); JACCL ring: per step, for the
  // 1/p of the message a step sends; 0 for a TCP ring (the link's latency holds it).
  double peer_s = 0;

  size_t ranks() const { return order.size(); }
  // One all-reduce of `bytes` over the group's worst link: a mesh exchanges with every peer at
  // once, lambda + (p-1) peer + 2 bytes(p-1)/(p beta); a ring reduce-scatters then all-gathers,
  // 2(p-1)(lambda + peer/p + bytes/(p beta)); one host 0.
  double allreduce_s(double bytes) const;
  // One exchange with every peer of a mesh: lambda + (p-1) peer.
  double mesh_exchange_latency_s() const;
  // The exchange of an expert-parallel MoE layer: on a mesh two exchanges (tokens out to their
  // experts' hosts, results back), each one exchange plus bytes/beta (SPEC section 7); on a
  // ring the partial sums need a ring all-reduce.
  double expert_exchange_s(double bytes) const;
};

class CollectivePaths {
 public:
  // `backend`: auto (every kind), jaccl (mesh), jaccl-ring, ring (TCP), ethernet (networks).
  CollectivePaths(const PlanInputs& inputs, std::string_view backend);

  // Every way `group` (sorted candidate indices) can all-reduce under the backend.
  std::vector<CollectivePath> options(const std::vector<size_t>& group) const;
  // Why `group` has no way, for messages.
  std::string why_none(const std::vector<size_t>& group) const;

 private:
  std::optional<CollectivePath> mesh(const std::vector<size_t>& group) const;
  std::optional<CollectivePath> ring(const std::vector<size_t>& group, CollectiveKind kind) const;
  std::optional<std::vector<size_t>> ring_order(const std::vector<size_t>& group,
                                                const LinkMatrix& links,
                                                const RingTable& table) const;
  void build(RingTable& table, const LinkMatrix& links) const;
  double cost(const LinkMatrix& links, size_t a, size_t b) const;

  const PlanInputs* in_;
  bool mesh_ = false, rdma_ring_ = false, tcp_ring_ = false;
  Transport tcp_transport_ = Transport::kTcp;
  RingTable rdma_table_, tcp_table_;
  std::vector<bool> rdma_linked_, tcp_linked_;  // beyond the tables: whether a host has any link
};

}  // namespace meshplan
