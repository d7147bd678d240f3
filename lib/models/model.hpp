// What a model costs, layer by layer: resident weight bytes, bytes read per decoded token,
// FLOPs per token and KV-cache bytes per token, plus embedding and LM head. Built from a tensor
// list (lib/model_builder.hpp), which comes from an architecture config or safetensors headers.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace meshplan {

enum class TensorRole {
  kEmbedding,
  kHead,
  kAttention,
  kMlp,
  kRouter,
  kExpert,
  kSharedExpert,
  kNorm,
  kOther
};
const char* tensor_role_name(TensorRole role);

// One tensor (or a stack of `experts` expert tensors) as stored, with its byte size.
struct TensorInfo {
  std::string name;
  int layer = -1;  // -1: not inside a transformer block
  TensorRole role = TensorRole::kOther;
  int experts = 0;             // > 0 when this tensor stacks that many routed experts
  std::vector<int64_t> shape;  // logical (unquantized) shape
  uint64_t params = 0;
  uint64_t bytes = 0;
  std::string dtype;  // storage type after quantization, e.g. "bf16", "q4g64", "mxfp4"
};

struct MoeLayerInfo {
  int experts = 0;            // routed experts
  int experts_per_token = 0;  // K
  int shared_experts = 0;
  uint64_t expert_bytes = 0;      // one routed expert
  uint64_t non_expert_bytes = 0;  // attention, router, shared experts, norms
  double expert_flops = 0;        // per token, one routed expert
};

struct LayerInfo {
  int index = 0;
  uint64_t weight_bytes = 0;        // W: resident
  uint64_t read_bytes = 0;          // A: read per decoded token
  double flops = 0;                 // phi: per token (2 x active parameters)
  uint64_t kv_bytes_per_token = 0;  // kappa
  int sliding_window = 0;  // > 0: the KV cache of this layer holds at most this many tokens
  std::optional<MoeLayerInfo> moe;

  // KV bytes at a context length.
  double kv_bytes(int64_t context) const;
};

struct ModelDesc {
  std::string name;          // catalog key with quantization, e.g. "deepseek-v3.1-4bit"
  std::string display_name;  // "DeepSeek-V3.1"
  std::string family;
  std::string architecture;  // config model_type
  std::string quantization;  // "4bit", "8bit", "bf16", "mxfp4", ...
  std::string source;        // where the configuration came from
  int hidden_size = 0;
  int vocab_size = 0;
  int num_heads = 0;
  int num_kv_heads = 0;
  int head_dim = 0;
  int64_t max_context = 0;  // the longest context it was trained for; 0 when unknown
  bool tied_embeddings = false;
  uint64_t embedding_bytes = 0;
  uint64_t head_bytes = 0;   // resident LM head bytes; 0 when tied to the embedding
  uint64_t other_bytes = 0;  // final norm and anything outside blocks, embedding and head
  // Stored but not loaded for decoding (multi-token-prediction layers); not in total_bytes().
  uint64_t unloaded_bytes = 0;
  std::vector<LayerInfo> layers;
  std::vector<TensorInfo> tensors;

  int num_layers() const { return static_cast<int>(layers.size()); }
  // Bytes the LM head reads per token (the embedding when tied).
  uint64_t head_read_bytes() const { return tied_embeddings ? embedding_bytes : head_bytes; }
  double head_flops() const { return 2.0 * vocab_size * hidden_size; }
  // Bytes held by the rank that runs embedding and LM head, besides its layers.
  uint64_t head_resident_bytes() const { return embedding_bytes + head_bytes + other_bytes; }
  uint64_t total_bytes() const;
  // Stored bits per parameter over every tensor (4.5 for MLX 4-bit, 16 for bf16); 16 when the
  // tensors are not known.
  double bits_per_weight() const;
  bool is_moe() const;
  // The most routed experts of any MoE layer (0 for a dense model).
  int routed_experts() const;
};

}  // namespace meshplan
