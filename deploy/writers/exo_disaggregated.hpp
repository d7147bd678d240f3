// Prefill on one host and decode on another with exo (exo-explore/exo @b5375f8, "MLX P/D"):
// both hosts run exo with ENABLE_DISAGGREGATION=true in one namespace; then, through one host's
// API, a one-node instance of the model is created on each (GET /instance/previews with the
// node's id from its own GET /node_id, POST /instance with the one-node pipeline preview), both
// waited for until their runners are ready (GET /state/runners/ID), and linked with POST
// /v1/instance-links {prefill_instances, decode_instances}. exo then sends prompts of more than
// 1000 tokens to the prefill instance, which streams the KV cache to the decode instance layer by
// layer over TCP. An NVIDIA host takes part through MLX's CUDA build (mlx-cuda).
#pragma once

#include <string>

namespace meshplan {

struct EmitInput;

// `emit exo-disagg`: each host's exo line and the script that creates and links the instances;
// an input error for a plan whose chosen shape is not prefill on one host and decode on another.
std::string write_exo_disaggregated(const EmitInput& in);

}  // namespace meshplan
