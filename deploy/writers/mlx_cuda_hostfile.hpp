// MLX on NVIDIA hosts runs the nccl backend with one rank per GPU (ml-explore/mlx
// python/mlx/_distributed_utils/launch.py, launch_nccl): the hostfile lists each host once per GPU
// in a row, rank 0's first IP is the NCCL rendezvous, and each rank's GPU is CUDA_VISIBLE_DEVICES =
// rank % -n, so `mlx.launch -n` must be the GPUs per host, the same on every host. The ring backend
// that mlx.distributed_config writes is for Macs (and CPUs).
#pragma once

#include <vector>

#include "deploy/layout/launch_nodes.hpp"
#include "topologies/mlx_hostfile.hpp"

namespace meshplan {

// Whether MLX runs its nccl backend on these ranks: every one has NVIDIA GPUs. A failure naming
// the hosts when only some do (MLX runs one backend for all ranks).
bool mlx_runs_nccl(const LaunchLayout& layout);

// Whether MLX runs on these ranks at all: all Macs or CPUs, or all NVIDIA hosts of one GPU count.
bool mlx_runs_on(const LaunchLayout& layout);

// The GPUs of every host (mlx.launch -n); a failure naming two hosts that differ.
int mlx_gpus_per_host(const LaunchLayout& layout);

// The nccl hostfile: backend "nccl", each host GPUs-per-host times, its data-network address.
MlxHostfile build_mlx_cuda_hostfile(const LaunchLayout& layout,
                                    const std::vector<std::string>& envs);

}  // namespace meshplan
