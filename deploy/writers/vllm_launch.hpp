// vLLM without Ray (multiprocessing executor), one `vllm serve` line per node in rank order:
// `--nnodes`, `--node-rank`, `--master-addr` (rank 0's management address) and `--master-port`,
// `--headless` on every node but rank 0, VLLM_HOST_IP and the NCCL/Gloo interface variables in
// front. A pipeline plan gives `-tp 1 -pp N` and its layer counts as VLLM_PP_LAYER_PARTITION
// (vLLM's explicit pipeline split); a tensor plan `-tp N -pp 1`; an expert plan adds
// --enable-expert-parallel. Needs a plan.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "deploy/layout/launch_nodes.hpp"

namespace meshplan {

struct EmitInput;

// -tp and -pp of a plan, and its layer counts per stage (VLLM_PP_LAYER_PARTITION) for pipelines.
struct VllmShape {
  bool pipeline = false;
  int tp = 0;
  int pp = 1;
  std::string partition;
};
VllmShape vllm_shape(const LaunchLayout& layout);

// The variables in front of node `node`'s engine: VLLM_HOST_IP, NCCL/Gloo interfaces, the split.
std::vector<std::pair<std::string, std::string>> vllm_node_env(const LaunchLayout& layout,
                                                               size_t node, const VllmShape& shape);

// Node `node`'s `vllm serve` words in vLLM's multi-node form (--nnodes, --node-rank, rank 0 as
// the master, --headless on every node but rank 0).
std::vector<std::string> vllm_node_words(const EmitInput& in, const LaunchLayout& layout,
                                         const VllmShape& shape, size_t node);

// With Ray's executor (vLLM on a running Ray cluster): the one `vllm serve` line, run on the head.
std::string vllm_ray_command(const EmitInput& in, const LaunchLayout& layout);

inline constexpr int kVllmServePort = 8000;           // vllm serve --port default (its HTTP API)
inline constexpr int kVllmDefaultMasterPort = 29501;  // vllm/config/parallel.py master_port

std::string write_vllm(const EmitInput& in);

}  // namespace meshplan
