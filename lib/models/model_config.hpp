// The architecture of a model as its Hugging Face / MLX config.json describes it, normalised
// across families: llama, mistral, qwen2, qwen3 (dense); qwen3_moe, mixtral, dbrx, gpt_oss
// (mixture of experts with grouped-query attention); deepseek_v3 and kimi_k2 (multi-head latent
// attention, shared experts, leading dense layers). Family-specific reading and tensor lists live
// in lib/arch_*.cpp.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "lib/core/document.hpp"
#include "lib/models/arch_config.hpp"
#include "lib/models/model.hpp"

namespace meshplan {

// Reads a config.json document. Missing or absurd fields, and unknown architectures, are input
// errors naming the file and the field.
ArchConfig read_arch_config(const DocNode& config);

// The tensors of the architecture with their logical shapes (bytes filled by apply_quantization),
// named as mlx-lm names them.
std::vector<TensorInfo> architecture_tensors(const ArchConfig& config);

// KV-cache bytes per token of layer `layer` (bf16 cache).
uint64_t kv_bytes_per_token(const ArchConfig& config, int layer);

// Supported model_type values, for messages.
std::string supported_architectures();

}  // namespace meshplan
