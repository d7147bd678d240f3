// The MLX hostfile for a valid backend, as mlx.distributed_config would write it for the same
// cabling: ranks in input order (jaccl, ethernet) or ring order (ring, jaccl-ring); ring ips =
// each rank's own addresses on the cable(s) to its left neighbour; jaccl rdma cell j = the device
// of the first RDMA cable to rank j; jaccl-ring cells for both neighbours with cable k at the
// same index on both ends; JACCL ips = the management address (en0, else en1).
#pragma once

#include <string>
#include <vector>

#include "topologies/backend_rules.hpp"
#include "topologies/check_report.hpp"
#include "topologies/mlx_hostfile.hpp"

namespace meshplan {

// Throws a failure naming the host and the fix when an address the backend needs is unknown,
// and an input error when a port's interface is unknown.
MlxHostfile build_mlx_hostfile(const TopologyContext& ctx, const BackendVerdict& verdict,
                               const std::vector<std::string>& envs);

}  // namespace meshplan
