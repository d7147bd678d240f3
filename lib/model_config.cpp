#include "lib/model_config.hpp"

#include <fmt/format.h>

#include <set>

#include "lib/error.hpp"

namespace meshplan {
namespace {

// A positive integer field within sane bounds (rejects absurd configs before any allocation).
int read_dim(const DocNode& config, std::string_view key, int64_t max_value) {
  const DocNode& n = config.at(key);
  int64_t v = n.as_int();
  if (v <= 0 || v > max_value) n.fail(fmt::format("expected {} between 1 and {}, got {}", key, max_value, v));
  return static_cast<int>(v);
}

int read_dim_or(const DocNode& config, std::string_view key, int64_t max_value, int fallback) {
  const DocNode* n = config.find(key);
  if (!n || n->is_null()) return fallback;
  int64_t v = n->as_int();
  if (v < 0 || v > max_value) n->fail(fmt::format("expected {} between 0 and {}, got {}", key, max_value, v));
  return static_cast<int>(v);
}

bool read_bool_or(const DocNode& config, std::string_view key, bool fallback) {
  const DocNode* n = config.find(key);
  return n && !n->is_null() ? n->as_bool() : fallback;
}

constexpr int64_t kMaxDim = 1 << 20;
constexpr int64_t kMaxLayers = 4096;

const std::set<std::string>& supported_types() {
  static const std::set<std::string> types = {"llama", "mistral", "qwen2", "qwen3", "qwen3_moe", "deepseek_v3", "kimi_k2"};
  return types;
}

}  // namespace

ArchConfig read_arch_config(const DocNode& root) {
  root.require_object();
  // Multimodal wrappers keep the language model under text_config.
  const DocNode& cfg = root.find("text_config") ? root.at("text_config").require_object() : root;
  ArchConfig c;
  c.model_type = cfg.at("model_type").as_string();
  if (!supported_types().count(c.model_type)) {
    std::string list;
    for (const auto& t : supported_types()) list += (list.empty() ? "" : ", ") + t;
    cfg.at("model_type").fail(fmt::format("unknown architecture \"{}\"; supported: {}", c.model_type, list));
  }
  c.hidden_size = read_dim(cfg, "hidden_size", kMaxDim);
  c.num_layers = read_dim(cfg, "num_hidden_layers", kMaxLayers);
  c.num_heads = read_dim(cfg, "num_attention_heads", 65536);
  c.num_kv_heads = read_dim_or(cfg, "num_key_value_heads", 65536, c.num_heads);
  if (c.num_kv_heads == 0 || c.num_heads % c.num_kv_heads != 0)
    cfg.at("num_key_value_heads").fail(fmt::format("expected a divisor of num_attention_heads ({}), got {}", c.num_heads, c.num_kv_heads));
  c.head_dim = read_dim_or(cfg, "head_dim", 65536, c.hidden_size / c.num_heads);
  c.intermediate_size = read_dim(cfg, "intermediate_size", kMaxDim);
  c.vocab_size = read_dim(cfg, "vocab_size", 1 << 24);
  c.tie_embeddings = read_bool_or(cfg, "tie_word_embeddings", false);
  c.attention_bias = read_bool_or(cfg, "attention_bias", c.model_type == "qwen2");
  c.qk_norm = c.model_type == "qwen3" || c.model_type == "qwen3_moe";

  if (c.model_type == "deepseek_v3" || c.model_type == "kimi_k2") {
    c.mla = true;
    c.q_lora_rank = read_dim_or(cfg, "q_lora_rank", kMaxDim, 0);
    c.kv_lora_rank = read_dim(cfg, "kv_lora_rank", kMaxDim);
    c.qk_nope_head_dim = read_dim(cfg, "qk_nope_head_dim", 65536);
    c.qk_rope_head_dim = read_dim(cfg, "qk_rope_head_dim", 65536);
    c.v_head_dim = read_dim(cfg, "v_head_dim", 65536);
    c.num_experts = read_dim(cfg, "n_routed_experts", 65536);
    c.experts_per_token = read_dim(cfg, "num_experts_per_tok", 65536);
    c.moe_intermediate_size = read_dim(cfg, "moe_intermediate_size", kMaxDim);
    c.num_shared_experts = read_dim_or(cfg, "n_shared_experts", 1024, 0);
    c.router_score_bias = true;
    int first_dense = read_dim_or(cfg, "first_k_dense_replace", kMaxLayers, 0);
    int freq = std::max(1, read_dim_or(cfg, "moe_layer_freq", kMaxLayers, 1));
    for (int l = 0; l < c.num_layers; ++l) c.moe_layers.push_back(l >= first_dense && l % freq == 0);
  } else if (c.model_type == "qwen3_moe") {
    c.num_experts = read_dim(cfg, "num_experts", 65536);
    c.experts_per_token = read_dim(cfg, "num_experts_per_tok", 65536);
    c.moe_intermediate_size = read_dim(cfg, "moe_intermediate_size", kMaxDim);
    int step = std::max(1, read_dim_or(cfg, "decoder_sparse_step", kMaxLayers, 1));
    std::set<int> dense;
    if (const DocNode* m = cfg.find("mlp_only_layers")) {
      for (const auto& x : m->require_array().items()) dense.insert(static_cast<int>(x.as_int()));
    }
    for (int l = 0; l < c.num_layers; ++l) c.moe_layers.push_back(!dense.count(l) && (l + 1) % step == 0);
  }
  if (c.is_moe() && c.experts_per_token > c.num_experts)
    cfg.fail(fmt::format("num_experts_per_tok ({}) exceeds the number of experts ({})", c.experts_per_token, c.num_experts));
  c.sliding_window.assign(c.num_layers, 0);

  if (const DocNode* q = root.find("quantization")) {
    if (!q->is_null()) {
      q->require_object();
      int bits = static_cast<int>(q->at("bits").as_int());
      int group = static_cast<int>(q->find("group_size") ? q->at("group_size").as_int() : 64);
      if (bits < 2 || bits > 8) q->at("bits").fail(fmt::format("expected 2 to 8 bits, got {}", bits));
      if (group <= 0 || group > 4096) q->fail(fmt::format("expected a group_size between 1 and 4096, got {}", group));
      QuantScheme s;
      s.name = fmt::format("{}bit", bits);
      s.base = {QuantSpec::Mode::kAffine, bits, group};
      for (const auto& [path, v] : q->fields()) {
        if (!v.is_object()) continue;
        QuantSpec spec{QuantSpec::Mode::kAffine, static_cast<int>(v.at("bits").as_int()),
                       static_cast<int>(v.find("group_size") ? v.at("group_size").as_int() : group)};
        s.overrides.emplace_back(path + ".weight", spec);
      }
      s.router_8bit = false;  // the file says exactly what it holds
      c.quantization = s;
    }
  }
  return c;
}

uint64_t kv_bytes_per_token(const ArchConfig& c, int layer) {
  (void)layer;
  // bf16 cache: MLA keeps the compressed latent and the rope key; GQA keeps K and V per KV head.
  if (c.mla) return static_cast<uint64_t>(c.kv_lora_rank + c.qk_rope_head_dim) * 2;
  return 2ull * c.num_kv_heads * c.head_dim * 2;
}

std::vector<TensorInfo> architecture_tensors(const ArchConfig& c) {
  std::vector<TensorInfo> out;
  auto add = [&](std::string name, int layer, TensorRole role, std::vector<int64_t> shape, int experts = 0) {
    TensorInfo t;
    t.name = std::move(name);
    t.layer = layer;
    t.role = role;
    t.experts = experts;
    t.shape = std::move(shape);
    t.params = 1;
    for (auto d : t.shape) t.params *= static_cast<uint64_t>(d);
    out.push_back(std::move(t));
  };
  const int64_t h = c.hidden_size;
  add("model.embed_tokens.weight", -1, TensorRole::kEmbedding, {c.vocab_size, h});
  for (int l = 0; l < c.num_layers; ++l) {
    std::string p = fmt::format("model.layers.{}.", l);
    add(p + "input_layernorm.weight", l, TensorRole::kNorm, {h});
    add(p + "post_attention_layernorm.weight", l, TensorRole::kNorm, {h});
    std::string a = p + "self_attn.";
    if (c.mla) {
      const int64_t qk = c.qk_nope_head_dim + c.qk_rope_head_dim;
      if (c.q_lora_rank > 0) {
        add(a + "q_a_proj.weight", l, TensorRole::kAttention, {c.q_lora_rank, h});
        add(a + "q_a_layernorm.weight", l, TensorRole::kNorm, {c.q_lora_rank});
        add(a + "q_b_proj.weight", l, TensorRole::kAttention, {c.num_heads * qk, c.q_lora_rank});
      } else {
        add(a + "q_proj.weight", l, TensorRole::kAttention, {c.num_heads * qk, h});
      }
      add(a + "kv_a_proj_with_mqa.weight", l, TensorRole::kAttention, {c.kv_lora_rank + c.qk_rope_head_dim, h});
      add(a + "kv_a_layernorm.weight", l, TensorRole::kNorm, {c.kv_lora_rank});
      add(a + "kv_b_proj.weight", l, TensorRole::kAttention,
          {static_cast<int64_t>(c.num_heads) * (c.qk_nope_head_dim + c.v_head_dim), c.kv_lora_rank});
      add(a + "o_proj.weight", l, TensorRole::kAttention, {h, static_cast<int64_t>(c.num_heads) * c.v_head_dim});
    } else {
      const int64_t q = static_cast<int64_t>(c.num_heads) * c.head_dim;
      const int64_t kv = static_cast<int64_t>(c.num_kv_heads) * c.head_dim;
      add(a + "q_proj.weight", l, TensorRole::kAttention, {q, h});
      add(a + "k_proj.weight", l, TensorRole::kAttention, {kv, h});
      add(a + "v_proj.weight", l, TensorRole::kAttention, {kv, h});
      add(a + "o_proj.weight", l, TensorRole::kAttention, {h, q});
      if (c.attention_bias) {
        add(a + "q_proj.bias", l, TensorRole::kAttention, {q});
        add(a + "k_proj.bias", l, TensorRole::kAttention, {kv});
        add(a + "v_proj.bias", l, TensorRole::kAttention, {kv});
      }
      if (c.qk_norm) {
        add(a + "q_norm.weight", l, TensorRole::kNorm, {c.head_dim});
        add(a + "k_norm.weight", l, TensorRole::kNorm, {c.head_dim});
      }
    }
    std::string m = p + "mlp.";
    bool moe = c.is_moe() && c.moe_layers[l];
    if (moe) {
      const int64_t e = c.num_experts, mi = c.moe_intermediate_size;
      add(m + "gate.weight", l, TensorRole::kRouter, {e, h});
      if (c.router_score_bias) add(m + "gate.e_score_correction_bias", l, TensorRole::kRouter, {e});
      add(m + "switch_mlp.gate_proj.weight", l, TensorRole::kExpert, {e, mi, h}, c.num_experts);
      add(m + "switch_mlp.up_proj.weight", l, TensorRole::kExpert, {e, mi, h}, c.num_experts);
      add(m + "switch_mlp.down_proj.weight", l, TensorRole::kExpert, {e, h, mi}, c.num_experts);
      if (c.num_shared_experts > 0) {
        int64_t si = c.shared_expert_intermediate_size > 0 ? c.shared_expert_intermediate_size
                                                           : static_cast<int64_t>(c.num_shared_experts) * mi;
        add(m + "shared_experts.gate_proj.weight", l, TensorRole::kSharedExpert, {si, h});
        add(m + "shared_experts.up_proj.weight", l, TensorRole::kSharedExpert, {si, h});
        add(m + "shared_experts.down_proj.weight", l, TensorRole::kSharedExpert, {h, si});
      }
    } else {
      const int64_t i = c.intermediate_size;
      add(m + "gate_proj.weight", l, TensorRole::kMlp, {i, h});
      add(m + "up_proj.weight", l, TensorRole::kMlp, {i, h});
      add(m + "down_proj.weight", l, TensorRole::kMlp, {h, i});
    }
  }
  add("model.norm.weight", -1, TensorRole::kNorm, {h});
  if (!c.tie_embeddings) add("lm_head.weight", -1, TensorRole::kHead, {c.vocab_size, h});
  return out;
}

}  // namespace meshplan
