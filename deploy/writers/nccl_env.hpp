// The NCCL and Gloo variables that pin collective traffic to the right interfaces: sockets on
// the data interface of the link the plan priced (deploy/layout/launch_nodes.hpp: a direct cable
// between the ranks, else the fastest switch holding them all, else the management address's);
// InfiniBand/RoCE on the RDMA devices of the links the ranks use. Exact-name forms only: NCCL reads
// "en0" as a prefix (en0, en01, ...) and "mlx5_1" as mlx5_1 and mlx5_10..19, "=" makes both exact
// (NCCL env docs).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "deploy/layout/launch_nodes.hpp"

namespace meshplan {

struct EmitInput;

// NCCL_SOCKET_IFNAME, GLOO_SOCKET_IFNAME and, when the node has RDMA devices, NCCL_IB_HCA (port 1
// of each), in that order.
std::vector<std::pair<std::string, std::string>> nccl_variables(const LaunchLayout& layout,
                                                                size_t node);

// `emit nccl-env`: per node, its variables as export lines.
std::string write_nccl_env(const EmitInput& in);

}  // namespace meshplan
