// Checks an existing MLX hostfile against the cabling (the bug class of MLX #4283: a hostfile in
// the wrong rank order passes and silently computes wrong results). Every pair the backend will
// use must have a working link: ring neighbours cabled and each rank's addresses its own and
// reachable from its left neighbour; every JACCL device on a cable to the rank it is listed for,
// both ends of a jaccl-ring cable at the same index; rank 0's coordinator address not on a
// Thunderbolt port.
#pragma once

#include <string>

#include "topologies/backend_rules.hpp"
#include "topologies/check_report.hpp"
#include "topologies/mlx_hostfile.hpp"

namespace meshplan {

// `backend`: "auto" takes the hostfile's own ("" or a bare list: ring over the listed addresses).
HostfileVerdict check_hostfile(const TopologyContext& ctx, const MlxHostfile& hostfile,
                               const std::string& path, const std::string& backend);

}  // namespace meshplan
