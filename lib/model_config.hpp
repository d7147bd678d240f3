// The architecture of a model as its Hugging Face / MLX config.json describes it, normalised
// across families (llama, qwen3, qwen3_moe, deepseek_v3, ...).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "lib/document.hpp"
#include "lib/model.hpp"
#include "lib/quantization.hpp"

namespace meshplan {

struct ArchConfig {
  std::string model_type;  // config "model_type"
  int hidden_size = 0;
  int num_layers = 0;
  int num_heads = 0;
  int num_kv_heads = 0;
  int head_dim = 0;
  int intermediate_size = 0;
  int vocab_size = 0;
  bool tie_embeddings = false;
  bool attention_bias = false;
  bool qk_norm = false;

  // Multi-head latent attention (DeepSeek V3 / Kimi K2).
  bool mla = false;
  int q_lora_rank = 0;
  int kv_lora_rank = 0;
  int qk_nope_head_dim = 0;
  int qk_rope_head_dim = 0;
  int v_head_dim = 0;

  // Mixture of experts.
  int num_experts = 0;
  int experts_per_token = 0;
  int moe_intermediate_size = 0;
  int num_shared_experts = 0;
  int shared_expert_intermediate_size = 0;  // 0: num_shared_experts x moe_intermediate_size
  std::vector<bool> moe_layers;              // per layer: routed experts here
  bool router_score_bias = false;            // DeepSeek's e_score_correction_bias

  // Sliding-window attention: window size per layer (0 = full attention).
  std::vector<int> sliding_window;

  // The config's own quantization block (MLX), if any.
  std::optional<QuantScheme> quantization;

  bool is_moe() const { return num_experts > 0; }
};

// Reads a config.json document. Missing or absurd fields are input errors naming the field.
ArchConfig read_arch_config(const DocNode& config);

// The tensors of the architecture, unquantized (bytes filled by apply_quantization).
std::vector<TensorInfo> architecture_tensors(const ArchConfig& config);

// KV-cache bytes per token of layer `layer` (bf16 cache).
uint64_t kv_bytes_per_token(const ArchConfig& config, int layer);

}  // namespace meshplan
