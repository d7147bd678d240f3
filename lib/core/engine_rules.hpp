// The engines' rules that decide whether a layout loads, and how, as functions of counts (heads,
// GPUs, experts, layers), each with the engine source it restates. The planner calls them so that
// it never chooses a layout an engine refuses or loads differently, and the launch writers call
// them so that nothing is written that the engine would refuse. docs/engines.md lists them.
#pragma once

#include <string>
#include <vector>

namespace meshplan {

// vLLM's tensor parallelism over `tp` GPUs: the attention heads must divide evenly
// (vllm/config/model.py ModelConfig.verify_with_parallel_config, "Total number of attention heads
// (H) must be divisible by tensor parallel size (T)"), and the KV heads must divide by `tp` or
// `tp` by them, each KV head then replicated tp/KV times (vllm/model_executor/layers/linear.py
// QKVParallelLinear, `divide`). "" when it loads, else why not. Unknown heads (0) pass.
std::string vllm_tensor_refusal(int tp, int heads, int kv_heads);

// Whether the degree passes vllm_tensor_refusal.
inline bool vllm_tensor_fits(int tp, int heads, int kv_heads) {
  return vllm_tensor_refusal(tp, heads, kv_heads).empty();
}

// The routed experts per layer that each of `ep` expert-parallel ranks loads under
// --enable-expert-parallel (ep = tensor x data parallel ranks): experts/ep each, one more on the
// first experts % ep ranks, in rank order, contiguous (vllm/model_executor/layers/fused_moe/
// layer.py determine_expert_map, linear placement). EPLB (--enable-eplb) adds
// --num-redundant-experts copies and splits the physical experts the same way.
std::vector<int> vllm_experts_per_rank(int experts, int ep);

// VLLM_PP_LAYER_PARTITION: one count per pipeline stage, each at least 1, summing to the layers
// (vllm/distributed/utils.py get_pp_indices). "" when vLLM takes it, else why not.
std::string vllm_partition_refusal(const std::vector<int>& counts, int layers, int pp);

// vLLM's multiprocessing launch (`--nnodes N --node-rank K --master-addr`) starts world/N ranks on
// every node (vllm/v1/executor/multiproc_executor.py, local world size = world size / nnodes), so
// it runs only where every node runs the same number of ranks; otherwise Ray places them
// (--distributed-executor-backend ray). `ranks_per_node` is the GPUs each node gives the job.
bool vllm_multiprocessing_fits(const std::vector<int>& ranks_per_node);

// mlx-lm's tensor parallelism over `ranks` hosts: each model's shard() divides the attention and
// KV heads by the group size (mlx_lm/models/llama.py and the others, `n_heads // N`), so both
// must divide evenly; one rank per host (mlx.launch starts one process per hostfile entry).
std::string mlx_lm_tensor_refusal(int ranks, int heads, int kv_heads);

// exo's tensor instance over `nodes` nodes: hidden size divisible by the nodes, and the KV heads
// too when known (exo src/exo/master/placement.py, the tensor divisibility filter).
std::string exo_tensor_refusal(int nodes, int hidden, int kv_heads);

// llama.cpp RPC's devices are the RPC servers' in --rpc order, then the main host's own; n_layer +
// 1 slots (the output layer last) are offloaded from slot n_layer + 1 - ngl, slot il to the first
// device whose cumulative --tensor-split share exceeds il / (n_layer + 1) (ggml-org/llama.cpp
// src/llama-model.cpp load_tensors). So the main host runs the last layers and the output layer,
// -ngl is n_layer + 1, and the split is each device's layer count, the last one counting the output
// layer: what llama_tensor_split returns from the layers per device in that order.
std::vector<int> llama_tensor_split(std::vector<int> layers_per_device);
inline int llama_gpu_layers(int layers) {
  return layers + 1;
}

// torchrun, MPI and DeepSpeed start one process per GPU of a node (--nproc-per-node, slots=,
// a hostfile's slots): the slots of a node of `gpus` GPUs, one for a host without GPUs.
inline int launcher_slots(int gpus) {
  return gpus > 1 ? gpus : 1;
}

}  // namespace meshplan
