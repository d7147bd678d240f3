// What each model family adds to the common config fields: experts, latent attention, windows.
#include <fmt/format.h>

#include <set>

#include "lib/core/error.hpp"
#include "lib/models/arch_fields.hpp"

namespace meshplan::arch {

int read_dim(const DocNode& config, std::string_view key, int64_t max_value) {
  const DocNode& n = config.at(key);
  int64_t v = n.as_int();
  if (v <= 0 || v > max_value)
    n.fail(fmt::format("expected {} between 1 and {}, got {}", key, max_value, v));
  return static_cast<int>(v);
}

int read_dim_or(const DocNode& config, std::string_view key, int64_t max_value, int fallback) {
  const DocNode* n = config.find(key);
  if (!n || n->is_null()) return fallback;
  int64_t v = n->as_int();
  if (v < 0 || v > max_value)
    n->fail(fmt::format("expected {} between 0 and {}, got {}", key, max_value, v));
  return static_cast<int>(v);
}

bool read_bool_or(const DocNode& config, std::string_view key, bool fallback) {
  const DocNode* n = config.find(key);
  return n && !n->is_null() ? n->as_bool() : fallback;
}

void read_deepseek(const DocNode& cfg, ArchConfig& c) {
  c.mla = true;
  c.q_lora_rank = read_dim_or(cfg, "q_lora_rank", kMaxDim, 0);
  c.kv_lora_rank = read_dim(cfg, "kv_lora_rank", kMaxDim);
  c.qk_nope_head_dim = read_dim(cfg, "qk_nope_head_dim", kMaxHeads);
  c.qk_rope_head_dim = read_dim(cfg, "qk_rope_head_dim", kMaxHeads);
  c.v_head_dim = read_dim(cfg, "v_head_dim", kMaxHeads);
  c.head_dim = c.qk_nope_head_dim + c.qk_rope_head_dim;
  c.num_experts = read_dim(cfg, "n_routed_experts", kMaxExperts);
  c.experts_per_token = read_dim(cfg, "num_experts_per_tok", kMaxExperts);
  c.moe_intermediate_size = read_dim(cfg, "moe_intermediate_size", kMaxDim);
  c.num_shared_experts = read_dim_or(cfg, "n_shared_experts", 1024, 0);
  c.router_score_bias = true;
  c.router_quant = RouterQuant::kFloat;  // MoEGate holds a bare weight, not a Linear
  c.extra_layers = read_dim_or(cfg, "num_nextn_predict_layers", 16, 0);
  int first_dense = read_dim_or(cfg, "first_k_dense_replace", kMaxLayers, 0);
  int freq = std::max(1, read_dim_or(cfg, "moe_layer_freq", kMaxLayers, 1));
  for (int l = 0; l < c.num_layers; ++l)
    c.moe_layers.push_back(l >= first_dense && l % freq == 0);
}

void read_qwen_moe(const DocNode& cfg, ArchConfig& c) {
  c.num_experts = read_dim(cfg, "num_experts", kMaxExperts);
  c.experts_per_token = read_dim(cfg, "num_experts_per_tok", kMaxExperts);
  c.moe_intermediate_size = read_dim(cfg, "moe_intermediate_size", kMaxDim);
  c.router_quant = RouterQuant::k8bit;
  int step = std::max(1, read_dim_or(cfg, "decoder_sparse_step", kMaxLayers, 1));
  std::set<int> dense;
  if (const DocNode* m = cfg.find("mlp_only_layers"); m && !m->is_null()) {
    for (const auto& x : m->require_array().items()) {
      int64_t l = x.as_int();
      if (l < 0 || l >= c.num_layers)
        x.fail(fmt::format("expected a layer index below {}, got {}", c.num_layers, l));
      dense.insert(static_cast<int>(l));
    }
  }
  for (int l = 0; l < c.num_layers; ++l)
    c.moe_layers.push_back(!dense.count(l) && (l + 1) % step == 0);
}

void read_mixtral(const DocNode& cfg, ArchConfig& c) {
  c.num_experts = read_dim(cfg, "num_local_experts", kMaxExperts);
  c.experts_per_token = read_dim(cfg, "num_experts_per_tok", kMaxExperts);
  c.moe_intermediate_size = c.intermediate_size;
  c.moe_layers.assign(static_cast<size_t>(c.num_layers), true);
}

void read_gpt_oss(const DocNode& cfg, ArchConfig& c) {
  c.num_experts = read_dim(cfg, "num_local_experts", kMaxExperts);
  const DocNode* k = cfg.find("num_experts_per_tok");
  c.experts_per_token = k ? read_dim(cfg, "num_experts_per_tok", kMaxExperts)
                          : read_dim(cfg, "experts_per_token", kMaxExperts);
  c.moe_intermediate_size = c.intermediate_size;
  c.moe_layers.assign(static_cast<size_t>(c.num_layers), true);
  c.attention_bias = true;
  c.o_bias = true;
  c.attention_sinks = true;
  c.router_bias = true;
  c.expert_bias = true;
  c.router_quant = RouterQuant::k8bit;
  // Alternating sliding-window and full attention; the window caps those layers' KV cache.
  int window = read_dim(cfg, "sliding_window", kMaxDim);
  c.sliding_window.assign(static_cast<size_t>(c.num_layers), 0);
  if (const DocNode* types = cfg.find("layer_types"); types && !types->is_null()) {
    const auto& items = types->require_array().items();
    if (static_cast<int>(items.size()) != c.num_layers)
      types->fail(fmt::format("expected {} entries (num_hidden_layers), got {}", c.num_layers,
                              items.size()));
    for (size_t l = 0; l < items.size(); ++l) {
      std::string t = items[l].as_string();
      if (t == "sliding_attention")
        c.sliding_window[l] = window;
      else if (t != "full_attention")
        items[l].fail(
            fmt::format("expected \"sliding_attention\" or \"full_attention\", got \"{}\"", t));
    }
  } else {
    for (int l = 0; l < c.num_layers; l += 2)
      c.sliding_window[static_cast<size_t>(l)] = window;
  }
}

void read_dbrx(const DocNode& cfg, ArchConfig& c) {
  c.hidden_size = read_dim(cfg, "d_model", kMaxDim);
  c.num_layers = read_dim(cfg, "n_layers", kMaxLayers);
  c.num_heads = read_dim(cfg, "n_heads", kMaxHeads);
  c.vocab_size = read_dim(cfg, "vocab_size", kMaxVocab);
  if (c.hidden_size % c.num_heads != 0)
    cfg.at("n_heads").fail(
        fmt::format("expected a divisor of d_model ({}), got {}", c.hidden_size, c.num_heads));
  c.head_dim = c.hidden_size / c.num_heads;
  const DocNode& attn = cfg.at("attn_config").require_object();
  c.num_kv_heads = read_dim_or(attn, "kv_n_heads", kMaxHeads, c.num_heads);
  if (c.num_kv_heads == 0 || c.num_heads % c.num_kv_heads != 0)
    attn.at("kv_n_heads")
        .fail(
            fmt::format("expected a divisor of n_heads ({}), got {}", c.num_heads, c.num_kv_heads));
  const DocNode& ffn = cfg.at("ffn_config").require_object();
  c.intermediate_size = read_dim(ffn, "ffn_hidden_size", kMaxDim);
  c.moe_intermediate_size = c.intermediate_size;
  c.num_experts = read_dim(ffn, "moe_num_experts", kMaxExperts);
  c.experts_per_token = read_dim(ffn, "moe_top_k", kMaxExperts);
  c.moe_layers.assign(static_cast<size_t>(c.num_layers), true);
  c.tie_embeddings = read_bool_or(cfg, "tie_word_embeddings", false);
  c.fused_qkv = true;
}

void read_sliding_window(const DocNode& cfg, ArchConfig& c) {
  c.sliding_window.assign(static_cast<size_t>(c.num_layers), 0);
  const bool qwen = c.model_type.rfind("qwen", 0) == 0;
  if (qwen && !read_bool_or(cfg, "use_sliding_window", false)) return;
  if (c.model_type == "llama") return;
  int window = read_dim_or(cfg, "sliding_window", kMaxDim * 16, 0);
  if (window == 0) return;
  int first = qwen ? read_dim_or(cfg, "max_window_layers", kMaxLayers, 0) : 0;
  for (int l = first; l < c.num_layers; ++l)
    c.sliding_window[static_cast<size_t>(l)] = window;
}

}  // namespace meshplan::arch
