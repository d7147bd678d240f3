// The tensor list of an architecture, named as mlx-lm names the converted weights, so that the
// per-module entries of an MLX "quantization" block apply to the right tensors.
#include <fmt/format.h>

#include "lib/models/model_config.hpp"

namespace meshplan {
namespace {

// Where a family keeps its tensors.
struct Names {
  std::string embed = "model.embed_tokens.weight";
  std::string final_norm = "model.norm.weight";
  std::string layer = "model.layers.{}.";
  std::string norm1 = "input_layernorm.weight";
  std::string norm2 = "post_attention_layernorm.weight";
  std::string attn = "self_attn.";
  std::string o = "o_proj";
  std::string mlp = "mlp.";
  std::string gate = "gate_proj", up = "up_proj", down = "down_proj";
  std::string router = "mlp.gate";
  std::string experts = "mlp.switch_mlp.";
  std::string shared = "mlp.shared_experts.";
};

Names names_for(const ArchConfig& c) {
  Names n;
  if (c.model_type == "mixtral") {
    n.router = "block_sparse_moe.gate";
    n.experts = "block_sparse_moe.switch_mlp.";
  } else if (c.model_type == "gpt_oss") {
    n.router = "mlp.router";
    n.experts = "mlp.experts.";
  } else if (c.model_type == "dbrx") {
    n.embed = "transformer.wte.weight";
    n.final_norm = "transformer.norm_f.weight";
    n.layer = "transformer.blocks.{}.";
    n.norm1 = "norm_attn_norm.norm_1.weight";
    n.norm2 = "norm_attn_norm.norm_2.weight";
    n.attn = "norm_attn_norm.attn.";
    n.o = "out_proj";
    n.router = "ffn.router.layer";
    n.experts = "ffn.experts.";
    n.gate = "w1";
    n.up = "v1";
    n.down = "w2";
  }
  return n;
}

class TensorList {
 public:
  void add(std::string name, int layer, TensorRole role, std::vector<int64_t> shape,
           int experts = 0) {
    TensorInfo t;
    t.name = std::move(name);
    t.layer = layer;
    t.role = role;
    t.experts = experts;
    t.shape = std::move(shape);
    t.params = 1;
    for (auto d : t.shape)
      t.params *= static_cast<uint64_t>(d);
    out.push_back(std::move(t));
  }
  std::vector<TensorInfo> out;
};

void add_mla(TensorList& t, const ArchConfig& c, int l, const std::string& a) {
  const int64_t h = c.hidden_size, heads = c.num_heads;
  const int64_t qk = c.qk_nope_head_dim + c.qk_rope_head_dim;
  if (c.q_lora_rank > 0) {
    t.add(a + "q_a_proj.weight", l, TensorRole::kAttention, {c.q_lora_rank, h});
    t.add(a + "q_a_layernorm.weight", l, TensorRole::kNorm, {c.q_lora_rank});
    t.add(a + "q_b_proj.weight", l, TensorRole::kAttention, {heads * qk, c.q_lora_rank});
  } else {
    t.add(a + "q_proj.weight", l, TensorRole::kAttention, {heads * qk, h});
  }
  t.add(a + "kv_a_proj_with_mqa.weight", l, TensorRole::kAttention,
        {c.kv_lora_rank + c.qk_rope_head_dim, h});
  t.add(a + "kv_a_layernorm.weight", l, TensorRole::kNorm, {c.kv_lora_rank});
  t.add(a + "kv_b_proj.weight", l, TensorRole::kAttention,
        {heads * (c.qk_nope_head_dim + c.v_head_dim), c.kv_lora_rank});
  t.add(a + "o_proj.weight", l, TensorRole::kAttention, {h, heads * c.v_head_dim});
}

void add_gqa(TensorList& t, const ArchConfig& c, const Names& n, int l, const std::string& a) {
  const int64_t h = c.hidden_size;
  const int64_t q = static_cast<int64_t>(c.num_heads) * c.head_dim;
  const int64_t kv = static_cast<int64_t>(c.num_kv_heads) * c.head_dim;
  if (c.fused_qkv) {
    t.add(a + "Wqkv.weight", l, TensorRole::kAttention, {q + 2 * kv, h});
  } else {
    t.add(a + "q_proj.weight", l, TensorRole::kAttention, {q, h});
    t.add(a + "k_proj.weight", l, TensorRole::kAttention, {kv, h});
    t.add(a + "v_proj.weight", l, TensorRole::kAttention, {kv, h});
  }
  t.add(a + n.o + ".weight", l, TensorRole::kAttention, {h, q});
  if (c.attention_bias) {
    t.add(a + "q_proj.bias", l, TensorRole::kAttention, {q});
    t.add(a + "k_proj.bias", l, TensorRole::kAttention, {kv});
    t.add(a + "v_proj.bias", l, TensorRole::kAttention, {kv});
  }
  if (c.o_bias) t.add(a + n.o + ".bias", l, TensorRole::kAttention, {h});
  if (c.attention_sinks) t.add(a + "sinks", l, TensorRole::kAttention, {c.num_heads});
  if (c.qk_norm) {
    t.add(a + "q_norm.weight", l, TensorRole::kNorm, {c.head_dim});
    t.add(a + "k_norm.weight", l, TensorRole::kNorm, {c.head_dim});
  }
}

void add_moe(TensorList& t, const ArchConfig& c, const Names& n, int l, const std::string& p) {
  const int64_t h = c.hidden_size, e = c.num_experts, mi = c.moe_intermediate_size;
  t.add(p + n.router + ".weight", l, TensorRole::kRouter, {e, h});
  if (c.router_bias) t.add(p + n.router + ".bias", l, TensorRole::kRouter, {e});
  if (c.router_score_bias)
    t.add(p + n.router + ".e_score_correction_bias", l, TensorRole::kRouter, {e});
  const std::string x = p + n.experts;
  t.add(x + n.gate + ".weight", l, TensorRole::kExpert, {e, mi, h}, c.num_experts);
  t.add(x + n.up + ".weight", l, TensorRole::kExpert, {e, mi, h}, c.num_experts);
  t.add(x + n.down + ".weight", l, TensorRole::kExpert, {e, h, mi}, c.num_experts);
  if (c.expert_bias) {
    t.add(x + n.gate + ".bias", l, TensorRole::kExpert, {e, mi}, c.num_experts);
    t.add(x + n.up + ".bias", l, TensorRole::kExpert, {e, mi}, c.num_experts);
    t.add(x + n.down + ".bias", l, TensorRole::kExpert, {e, h}, c.num_experts);
  }
  if (c.num_shared_experts > 0) {
    int64_t si = c.shared_expert_intermediate_size > 0
                     ? c.shared_expert_intermediate_size
                     : static_cast<int64_t>(c.num_shared_experts) * mi;
    const std::string s = p + n.shared;
    t.add(s + n.gate + ".weight", l, TensorRole::kSharedExpert, {si, h});
    t.add(s + n.up + ".weight", l, TensorRole::kSharedExpert, {si, h});
    t.add(s + n.down + ".weight", l, TensorRole::kSharedExpert, {h, si});
  }
}

}  // namespace

std::vector<TensorInfo> architecture_tensors(const ArchConfig& c) {
  const Names n = names_for(c);
  TensorList t;
  const int64_t h = c.hidden_size;
  t.add(n.embed, -1, TensorRole::kEmbedding, {c.vocab_size, h});
  for (int l = 0; l < c.num_layers; ++l) {
    const std::string p = fmt::format(fmt::runtime(n.layer), l);
    t.add(p + n.norm1, l, TensorRole::kNorm, {h});
    t.add(p + n.norm2, l, TensorRole::kNorm, {h});
    if (c.mla)
      add_mla(t, c, l, p + n.attn);
    else
      add_gqa(t, c, n, l, p + n.attn);
    if (c.moe_layer(l)) {
      add_moe(t, c, n, l, p);
    } else {
      const int64_t i = c.intermediate_size;
      t.add(p + n.mlp + n.gate + ".weight", l, TensorRole::kMlp, {i, h});
      t.add(p + n.mlp + n.up + ".weight", l, TensorRole::kMlp, {i, h});
      t.add(p + n.mlp + n.down + ".weight", l, TensorRole::kMlp, {h, i});
    }
  }
  t.add(n.final_norm, -1, TensorRole::kNorm, {h});
  if (!c.tie_embeddings) t.add("lm_head.weight", -1, TensorRole::kHead, {c.vocab_size, h});
  return std::move(t.out);
}

}  // namespace meshplan
