// The variables mlx.launch exports on each rank, derived from a hostfile the way mlx.launch does,
// for running ranks without it (a scheduler, a service): MLX_RANK; for ring MLX_HOSTFILE (a file
// of [["ip:port", ...], ...]); for JACCL MLX_JACCL_COORDINATOR, MLX_IBV_DEVICES (a file with the
// N x N device matrix) and MLX_JACCL_RING; for nccl MLX_WORLD_SIZE, NCCL_HOST_IP, NCCL_PORT and
// CUDA_VISIBLE_DEVICES. Files are given by content, written as mlx.launch does.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "deploy/layout/launch_options.hpp"
#include "topologies/mlx_hostfile.hpp"

namespace meshplan {

struct MlxEnvFile {
  std::string variable;  // "MLX_HOSTFILE", "MLX_IBV_DEVICES"
  std::string content;   // what the file holds
};

struct MlxRankEnv {
  int rank = 0;        // MLX_RANK: the rank's place in the hostfile
  int plan_rank = -1;  // the plan's rank of this host where it differs (mark_plan_ranks), else -1
  std::string ssh;
  // In mlx.launch's export order: hostfile envs, backend variables; files, then MLX_RANK, follow.
  std::vector<std::pair<std::string, std::string>> variables;
  std::vector<MlxEnvFile> files;
};

// The backend mlx.launch would use for this hostfile ("" means ring).
std::string mlx_launch_backend(const MlxHostfile& hostfile);

// Throws an input error when the hostfile cannot drive its backend (rank 0 without an IP for
// JACCL, a ring host without IPs, an rdma row of the wrong size).
std::vector<MlxRankEnv> mlx_rank_envs(const MlxHostfile& hostfile, const MlxEnvOptions& options);

// A TCP connection a launch opens: rank `connector` connects to address:port, where rank
// `listener` listens. Ring: each of a rank's entries, from the rank before it (ring.cpp); JACCL:
// rank 0's coordinator port, from every other rank.
struct MlxConnection {
  size_t listener = 0, connector = 0;
  std::string address;
  int port = 0;
};
std::vector<MlxConnection> mlx_connections(const MlxHostfile& hostfile,
                                           const MlxEnvOptions& options);

// A shell fragment per rank: exports, each file written with a here-document, MLX_RANK last; for
// one rank, a comment saying that it runs without any.
std::string render_mlx_env(const MlxHostfile& hostfile, const std::vector<MlxRankEnv>& ranks);

}  // namespace meshplan
