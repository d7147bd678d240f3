#include "lib/models/tensor_naming.hpp"

#include <algorithm>
#include <vector>

namespace meshplan {
namespace {

bool starts_with(std::string_view s, std::string_view prefix) {
  return s.rfind(prefix, 0) == 0;
}

bool all_digits(std::string_view s) {
  return !s.empty() && s.size() <= 6 &&
         std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::vector<std::string_view> split(std::string_view s) {
  std::vector<std::string_view> out;
  size_t start = 0;
  while (true) {
    size_t dot = s.find('.', start);
    out.push_back(
        s.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start));
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  return out;
}

// Splits off the suffix that marks a part of a quantized logical tensor.
void split_part(std::string_view name, TensorName& out) {
  struct Suffix {
    std::string_view suffix, replacement;
    TensorPart part;
  };
  static constexpr Suffix kSuffixes[] = {
      {".scales", ".weight", TensorPart::kScales},
      {".biases", ".weight", TensorPart::kBiases},
      {".weight_scale_inv", ".weight", TensorPart::kScales},
      {".weight_scale", ".weight", TensorPart::kScales},
      {".weight_packed", ".weight", TensorPart::kValues},
      {".weight_shape", ".weight", TensorPart::kMeta},
      {"_blocks", "", TensorPart::kValues},
      {"_scales", "", TensorPart::kScales},
  };
  for (const auto& s : kSuffixes) {
    if (std::string_view(name).ends_with(s.suffix)) {
      out.logical =
          std::string(name.substr(0, name.size() - s.suffix.size())) + std::string(s.replacement);
      out.part = s.part;
      return;
    }
  }
  out.logical = std::string(name);
  out.part = TensorPart::kPlain;
}

bool is_param_segment(std::string_view s) {
  return s == "weight" || s == "bias" || s == "e_score_correction_bias" ||
         std::string_view(s).ends_with("_bias");
}

bool is_norm(std::string_view module) {
  return module.find("norm") != std::string_view::npos || starts_with(module, "ln");
}

bool has_segment(const std::vector<std::string_view>& segs,
                 std::initializer_list<std::string_view> names) {
  for (auto s : segs) {
    for (auto n : names) {
      if (s == n) return true;
    }
  }
  return false;
}

}  // namespace

TensorName classify_tensor(std::string_view stored) {
  TensorName out;
  split_part(stored, out);
  const std::vector<std::string_view> segs = split(out.logical);
  const size_t n = segs.size();
  // The module the parameter belongs to: "input_layernorm" in "...input_layernorm.weight".
  const std::string_view module =
      n >= 2 && is_param_segment(segs[n - 1]) ? segs[n - 2] : segs[n - 1];

  // Vision and audio towers of multimodal models number their own blocks; they are not decoder
  // layers.
  for (auto s : segs) {
    if (starts_with(s, "vision") || starts_with(s, "visual") || starts_with(s, "audio") ||
        s == "mm_projector" || s == "multi_modal_projector")
      return out;
  }
  for (size_t i = 0; i + 1 < n; ++i) {
    if ((segs[i] == "layers" || segs[i] == "blocks" || segs[i] == "h" || segs[i] == "layer") &&
        all_digits(segs[i + 1])) {
      out.layer = std::stoi(std::string(segs[i + 1]));
      break;
    }
  }

  if (out.layer < 0) {
    if (module == "embed_tokens" || module == "wte" || module == "tok_embeddings" ||
        module == "word_embeddings" || module == "embeddings" || module == "embedding")
      out.role = TensorRole::kEmbedding;
    else if (module == "lm_head" || module == "embed_out" || out.logical == "output.weight")
      out.role = TensorRole::kHead;
    else if (is_norm(module))
      out.role = TensorRole::kNorm;
    return out;
  }

  for (size_t i = 0; i < n; ++i) {
    if (segs[i] == "shared_expert_gate") {
      out.role = TensorRole::kRouter;
      return out;
    }
    if (segs[i] == "shared_experts" || segs[i] == "shared_expert" || segs[i] == "shared_mlp") {
      out.role = TensorRole::kSharedExpert;
      return out;
    }
    if (segs[i] == "switch_mlp") {
      out.role = TensorRole::kExpert;
      out.stacked = true;
      return out;
    }
    if (segs[i] == "experts") {
      out.role = TensorRole::kExpert;
      if (i + 1 < n && all_digits(segs[i + 1]))
        out.expert = std::stoi(std::string(segs[i + 1]));
      else
        out.stacked = true;  // gpt-oss "experts.gate_up_proj", DBRX "experts.mlp.w1", MLX gpt-oss
      return out;
    }
  }
  if (segs[n - 1] == "e_score_correction_bias" || has_segment(segs, {"router", "gate"})) {
    out.role = TensorRole::kRouter;
  } else if (is_norm(module)) {
    out.role = TensorRole::kNorm;
  } else if (has_segment(segs, {"self_attn", "attn", "attention", "self_attention"})) {
    out.role = TensorRole::kAttention;
  } else if (has_segment(segs, {"mlp", "feed_forward", "ffn", "block_sparse_moe"})) {
    out.role = TensorRole::kMlp;
  }
  return out;
}

}  // namespace meshplan
