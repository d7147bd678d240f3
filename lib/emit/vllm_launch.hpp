// vLLM without Ray (multiprocessing executor), one `vllm serve` line per node in rank order:
// `--nnodes`, `--node-rank`, `--master-addr` (rank 0's management address) and `--master-port`,
// `--headless` on every node but rank 0, VLLM_HOST_IP and the NCCL/Gloo interface variables in
// front. A pipeline plan gives `-tp 1 -pp N` and its layer counts as VLLM_PP_LAYER_PARTITION
// (vLLM's explicit pipeline split); a tensor plan `-tp N -pp 1`; an expert plan adds
// --enable-expert-parallel. Needs a plan.
#pragma once

#include <string>

namespace meshplan {

struct EmitInput;

inline constexpr int kVllmDefaultMasterPort = 29501;  // vllm/config/parallel.py master_port

std::string write_vllm(const EmitInput& in);

}  // namespace meshplan
