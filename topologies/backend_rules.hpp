// The topology rules of SPEC section 5: for each MLX backend (jaccl, jaccl-ring, ring, ethernet)
// whether the cabling and networks carry it, every problem with its fix, and the rank order it
// would use. `auto` picks the first valid of jaccl > jaccl-ring > ring > ethernet, as
// mlx.distributed_config's automatic mode does (which has no ethernet fallback).
#pragma once

#include <array>
#include <string>
#include <vector>

#include "lib/cluster/backend_limits.hpp"
#include "lib/cluster/catalog.hpp"
#include "lib/cluster/cluster.hpp"
#include "lib/cluster/link_graph.hpp"
#include "lib/cluster/mlx_backend.hpp"
#include "topologies/check_report.hpp"
#include "topologies/topology_context.hpp"

namespace meshplan {

inline constexpr int kJacclRingMaxCables = 4;  // RING_MAX_CONNS in JACCL

struct CheckOptions {
  std::string backend = std::string(name(MlxBackend::kAuto));  // or one of all_mlx_backends()
  std::vector<std::string> hosts;  // restrict to these hosts in this order (e.g. a plan's ranks)
  bool fixed_order = false;        // ring backends must use `hosts` in this order as the ring
};

// One backend over `members` (host indices; their order is the rank order of jaccl and ethernet,
// and the index order of the ring search).
BackendVerdict check_backend(const TopologyContext& ctx, std::string_view backend,
                             const std::vector<size_t>& members, bool fixed_order);

// Checks that concern every backend: one-sided cables, Thunderbolt Bridge, subnets skipped.
std::vector<CheckIssue> cluster_issues(const TopologyContext& ctx,
                                       const std::vector<size_t>& members);

// RDMA on each host, macOS versions and builds, port states: shared by jaccl and jaccl-ring.
std::vector<CheckIssue> rdma_host_issues(const TopologyContext& ctx,
                                         const std::vector<size_t>& members,
                                         const std::string& backend);
// Rank 0 needs an address that is not on a Thunderbolt port (JACCL's coordinator).
std::vector<CheckIssue> coordinator_issues(const TopologyContext& ctx, size_t rank0,
                                           const std::string& backend);

// All backends, the chosen one, general issues, best links and the subnet plan.
CheckReport check_cluster(const TopologyContext& ctx, const CheckOptions& options);

// The verdict of the chosen backend; throws a failure listing its errors when it is not valid
// (for commands that emit artifacts only for a valid backend).
const BackendVerdict& require_valid(const CheckReport& report);

}  // namespace meshplan
