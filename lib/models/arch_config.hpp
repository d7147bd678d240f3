// The architecture of a model as its config.json describes it, normalised across families (see
// lib/models/model_config.hpp for the families and the reader).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "lib/models/quantization.hpp"

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
  int64_t max_context = 0;  // max_position_embeddings (dbrx: max_seq_len); 0 when not given
  bool tie_embeddings = false;
  bool attention_bias = false;   // q/k/v projections carry biases
  bool o_bias = false;           // the output projection too (gpt-oss)
  bool attention_sinks = false;  // one learned sink logit per head (gpt-oss)
  bool qk_norm = false;
  bool fused_qkv = false;  // one Wqkv projection (DBRX)

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
  int shared_expert_intermediate_size = 0;        // 0: num_shared_experts x moe_intermediate_size
  std::vector<bool> moe_layers;                   // per layer: routed experts here
  bool router_score_bias = false;                 // DeepSeek's e_score_correction_bias
  bool router_bias = false;                       // the router Linear has a bias (gpt-oss)
  bool expert_bias = false;                       // expert projections carry biases (gpt-oss)
  RouterQuant router_quant = RouterQuant::kBase;  // how MLX quantizes this family's routers
  int extra_layers = 0;  // layers stored after the decoder (multi-token prediction), not loaded

  // Sliding-window attention: window size per layer (0 = full attention).
  std::vector<int> sliding_window;

  // The config's own quantization: MLX "quantization" block, or the release format named by
  // "quantization_config" (fp8, mxfp4).
  std::optional<QuantScheme> quantization;
  // A "quantization_config" format whose bytes cannot be derived from the config alone
  // (e.g. "compressed-tensors"): reading the safetensors headers still works.
  std::string unsupported_quantization;
  std::string torch_dtype;  // "bfloat16", "float16", ... when the config says

  bool is_moe() const { return num_experts > 0; }
  bool moe_layer(int layer) const {
    return is_moe() && layer >= 0 && layer < static_cast<int>(moe_layers.size()) &&
           moe_layers[static_cast<size_t>(layer)];
  }
};

}  // namespace meshplan
