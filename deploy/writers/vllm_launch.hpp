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
#include "lib/plan/plan_file_reader.hpp"

namespace meshplan {

struct EmitInput;

// -tp and -pp of a plan, and its layer counts per stage (VLLM_PP_LAYER_PARTITION) for pipelines.
struct VllmShape {
  bool pipeline = false;
  int tp = 0;
  int pp = 1;
  std::string partition;
  std::vector<int> counts;  // the partition's layer counts
};
VllmShape vllm_shape(const LaunchLayout& layout);
// The same, fitted to the model's heads where one node's whole GPU count cannot split them
// (lib/core/engine_rules.hpp): its widest degree that can, and its GPUs as stages of it.
VllmShape vllm_shape(const LaunchLayout& layout, const PlanRanks::ModelShape& model);

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
inline constexpr int kRayDefaultPort = 6379;          // ray start --head --port default

// Whether the nodes give the job unequal GPU counts, which vLLM's multiprocessing launch cannot
// start (lib/core/engine_rules.hpp vllm_multiprocessing_fits): vLLM then runs on Ray.
bool vllm_needs_ray(const LaunchLayout& layout);

// Why vLLM on Ray would load the plan's ranks on other nodes ("" when it loads them as planned):
// it orders its workers the head's node first, then by GPUs per node and address.
std::string ray_order_refusal(const LaunchLayout& layout);

// vllm.sh: the multiprocessing launch, one line per node; on nodes of unequal GPU counts, each
// node's `ray start` and vLLM's one line on Ray. A failure when vLLM would refuse the layout.
std::string write_vllm(const EmitInput& in);

}  // namespace meshplan
