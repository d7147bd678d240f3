#include "lib/models/model_json.hpp"

namespace meshplan {

std::vector<int> dense_layers(const ModelDesc& m) {
  std::vector<int> out;
  if (!m.is_moe()) return out;
  for (const auto& l : m.layers) {
    if (!l.moe) out.push_back(l.index);
  }
  return out;
}

ojson model_summary_json(const ModelDesc& m) {
  ojson j;
  j["name"] = m.name;
  j["display_name"] = m.display_name;
  j["architecture"] = m.architecture;
  j["quantization"] = m.quantization;
  j["num_layers"] = m.num_layers();
  j["hidden_size"] = m.hidden_size;
  j["total_bytes"] = m.total_bytes();
  j["moe"] = m.is_moe();
  j["source"] = m.source;
  return j;
}

ojson layer_json(const LayerInfo& l) {
  ojson x;
  x["index"] = l.index;
  x["weight_bytes"] = l.weight_bytes;
  x["read_bytes"] = l.read_bytes;
  x["flops"] = json_number(l.flops);
  x["kv_bytes_per_token"] = l.kv_bytes_per_token;
  if (l.sliding_window > 0) x["sliding_window"] = l.sliding_window;
  if (l.moe) {
    x["experts"] = l.moe->experts;
    x["experts_per_token"] = l.moe->experts_per_token;
    x["expert_bytes"] = l.moe->expert_bytes;
    x["shared_experts"] = l.moe->shared_experts;
    x["non_expert_bytes"] = l.moe->non_expert_bytes;
    x["expert_flops"] = json_number(l.moe->expert_flops);
  }
  return x;
}

ojson model_json(const ModelDesc& m) {
  ojson j;
  j["name"] = m.name;
  j["display_name"] = m.display_name;
  j["quantization"] = m.quantization;
  j["architecture"] = m.architecture;
  j["hidden_size"] = m.hidden_size;
  j["vocab_size"] = m.vocab_size;
  j["num_layers"] = m.num_layers();
  j["num_heads"] = m.num_heads;
  j["num_kv_heads"] = m.num_kv_heads;
  j["head_dim"] = m.head_dim;
  j["tied_embeddings"] = m.tied_embeddings;
  j["embedding_bytes"] = m.embedding_bytes;
  j["head_bytes"] = m.head_bytes;
  j["head_read_bytes"] = m.head_read_bytes();
  j["head_flops"] = json_number(m.head_flops());
  j["other_bytes"] = m.other_bytes;
  j["total_bytes"] = m.total_bytes();
  if (m.unloaded_bytes > 0) j["unloaded_bytes"] = m.unloaded_bytes;
  uint64_t kv = 0;
  for (const auto& l : m.layers)
    kv += l.kv_bytes_per_token;
  j["kv_bytes_per_token"] = kv;
  if (m.is_moe()) {
    for (const auto& l : m.layers) {
      if (!l.moe) continue;
      j["experts"] = l.moe->experts;
      j["experts_per_token"] = l.moe->experts_per_token;
      j["shared_experts"] = l.moe->shared_experts;
      break;
    }
    j["dense_layers"] = dense_layers(m);
  }
  j["source"] = m.source;
  ojson layers = ojson::array();
  for (const auto& l : m.layers)
    layers.push_back(layer_json(l));
  j["layers"] = layers;
  return j;
}

}  // namespace meshplan
