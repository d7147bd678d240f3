// How tensors are stored: bf16/fp16, MLX affine quantization (2-8 bits with a group size; each
// group adds a bf16 scale and bias, i.e. 32/group_size bits per weight), MXFP4 (4-bit values with
// an 8-bit shared scale per 32). Norms, biases and tensors whose last dimension does not divide
// into groups stay unquantized, as MLX leaves them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "lib/model.hpp"

namespace meshplan {

struct QuantSpec {
  enum class Mode { kFloat, kAffine, kMxfp4 };
  Mode mode = Mode::kFloat;
  int bits = 16;         // kFloat: 32, 16 or 8 (fp8); kAffine: 2..8; kMxfp4: 4
  int group_size = 64;
  bool operator==(const QuantSpec&) const = default;
  std::string label() const;  // "bf16", "q4g64", "mxfp4"
};

struct QuantScheme {
  std::string name;  // "4bit", "8bit", "bf16", ...
  QuantSpec base;
  // Tensor-name suffix -> spec, for mixed quantization (MLX "quantization" per-path entries).
  std::vector<std::pair<std::string, QuantSpec>> overrides;
  // MoE routers kept at 8-bit when the base is lower (mlx-lm's quant predicate for MoE gates).
  bool router_8bit = true;

  QuantSpec spec_for(const TensorInfo& t) const;
};

// "4bit", "8bit", "6bit", "3bit", "2bit", "bf16", "fp16", "fp32", "fp8", "mxfp4" (also "q4", "int4").
std::optional<QuantScheme> quant_scheme(std::string_view name);
// Known names, for messages.
std::string quant_names();

// Storage bytes of a tensor of `params` parameters whose last dimension is `last_dim`.
uint64_t quantized_bytes(uint64_t params, int64_t last_dim, const QuantSpec& spec);
// Fills t.bytes and t.dtype.
void apply_quantization(TensorInfo& t, const QuantScheme& scheme);

}  // namespace meshplan
