#include "lib/models/model_builder.hpp"

#include "lib/core/error.hpp"

namespace meshplan {
namespace {

// What one decoder layer's tensors add up to.
struct LayerTotals {
  uint64_t bytes = 0, expert_bytes = 0, non_expert_params = 0, expert_params = 0;
  bool has_experts = false;
};

// Layer L's bytes read and FLOPs per token, from its tensors' totals A.
LayerInfo layer_info(const ArchConfig& config, int l, const LayerTotals& a) {
  LayerInfo info;
  info.index = l;
  info.weight_bytes = a.bytes;
  info.kv_bytes_per_token = kv_bytes_per_token(config, l);
  info.sliding_window =
      config.sliding_window.empty() ? 0 : config.sliding_window[static_cast<size_t>(l)];
  if (a.has_experts && config.num_experts > 0) {
    // Stacked (MLX switch_mlp) and one-tensor-per-expert layouts both sum to all experts.
    MoeLayerInfo moe;
    moe.experts = config.num_experts;
    moe.experts_per_token = config.experts_per_token;
    moe.shared_experts = config.num_shared_experts;
    moe.expert_bytes = a.expert_bytes / static_cast<uint64_t>(config.num_experts);
    moe.non_expert_bytes = a.bytes - a.expert_bytes;
    double params_per_expert = static_cast<double>(a.expert_params) / config.num_experts;
    moe.expert_flops = 2.0 * params_per_expert;
    info.read_bytes =
        moe.non_expert_bytes + static_cast<uint64_t>(moe.experts_per_token) * moe.expert_bytes;
    info.flops =
        2.0 * static_cast<double>(a.non_expert_params) + moe.experts_per_token * moe.expert_flops;
    info.moe = moe;
  } else {
    info.read_bytes = a.bytes;
    info.flops = 2.0 * static_cast<double>(a.non_expert_params + a.expert_params);
  }
  return info;
}

}  // namespace

ModelDesc build_model(const ArchConfig& config, std::vector<TensorInfo> tensors,
                      const ModelMeta& meta) {
  ModelDesc m;
  m.name = meta.name;
  m.display_name = meta.display_name;
  m.family = meta.family;
  m.quantization = meta.quantization;
  m.source = meta.source;
  m.architecture = config.model_type;
  m.hidden_size = config.hidden_size;
  m.vocab_size = config.vocab_size;
  m.num_heads = config.num_heads;
  m.num_kv_heads = config.num_kv_heads;
  m.head_dim = config.mla ? config.qk_nope_head_dim + config.qk_rope_head_dim : config.head_dim;
  m.tied_embeddings = config.tie_embeddings;
  m.max_context = config.max_context;

  std::vector<LayerTotals> acc(static_cast<size_t>(config.num_layers));
  for (const auto& t : tensors) {
    if (t.layer >= config.num_layers) {
      // Multi-token-prediction layers follow the decoder; engines skip them when decoding.
      if (t.layer < config.num_layers + config.extra_layers) {
        m.unloaded_bytes += t.bytes;
        continue;
      }
      throw input_error(
          "tensor {} belongs to layer {}, but the config has {} layers (num_hidden_layers)", t.name,
          t.layer, config.num_layers);
    }
    if (t.layer < 0) {
      if (t.role == TensorRole::kEmbedding)
        m.embedding_bytes += t.bytes;
      else if (t.role == TensorRole::kHead)
        m.head_bytes += t.bytes;
      else
        m.other_bytes += t.bytes;
      continue;
    }
    LayerTotals& a = acc[static_cast<size_t>(t.layer)];
    a.bytes += t.bytes;
    if (t.role == TensorRole::kExpert) {
      a.has_experts = true;
      a.expert_bytes += t.bytes;
      a.expert_params += t.params;
    } else {
      a.non_expert_params += t.params;
    }
  }
  for (int l = 0; l < config.num_layers; ++l)
    m.layers.push_back(layer_info(config, l, acc[static_cast<size_t>(l)]));
  m.tensors = std::move(tensors);
  return m;
}

ModelDesc model_from_config(const ArchConfig& config, const QuantScheme& scheme,
                            const ModelMeta& meta) {
  QuantScheme s = scheme;
  if (!s.router) s.router = config.router_quant;
  std::vector<TensorInfo> tensors = architecture_tensors(config);
  for (auto& t : tensors)
    apply_quantization(t, s);
  return build_model(config, std::move(tensors), meta);
}

}  // namespace meshplan
