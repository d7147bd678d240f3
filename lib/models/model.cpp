#include "lib/models/model.hpp"

#include <algorithm>

namespace meshplan {

const char* tensor_role_name(TensorRole role) {
  switch (role) {
    case TensorRole::kEmbedding:
      return "embedding";
    case TensorRole::kHead:
      return "head";
    case TensorRole::kAttention:
      return "attention";
    case TensorRole::kMlp:
      return "mlp";
    case TensorRole::kRouter:
      return "router";
    case TensorRole::kExpert:
      return "expert";
    case TensorRole::kSharedExpert:
      return "shared_expert";
    case TensorRole::kNorm:
      return "norm";
    case TensorRole::kOther:
      return "other";
  }
  return "other";
}

double LayerInfo::kv_bytes(int64_t context) const {
  int64_t tokens = sliding_window > 0 ? std::min<int64_t>(context, sliding_window) : context;
  return static_cast<double>(kv_bytes_per_token) * static_cast<double>(tokens);
}

uint64_t ModelDesc::total_bytes() const {
  uint64_t total = embedding_bytes + head_bytes + other_bytes;
  for (const auto& l : layers)
    total += l.weight_bytes;
  return total;
}

double ModelDesc::bits_per_weight() const {
  double bytes = 0, params = 0;
  for (const TensorInfo& t : tensors) {
    bytes += static_cast<double>(t.bytes);
    params += static_cast<double>(t.params);
  }
  return params > 0 ? 8 * bytes / params : 16;
}

bool ModelDesc::is_moe() const {
  return std::any_of(layers.begin(), layers.end(),
                     [](const LayerInfo& l) { return l.moe.has_value(); });
}

int ModelDesc::routed_experts() const {
  int most = 0;
  for (const LayerInfo& l : layers)
    if (l.moe) most = std::max(most, l.moe->experts);
  return most;
}

}  // namespace meshplan
