// How tensors are stored, and so how many bytes they take:
//  * floats: fp32, bf16/fp16;
//  * MLX affine quantization: 2-8 bits with a group size; each group adds a bf16 scale and a bf16
//    bias, i.e. 32/group_size bits per weight;
//  * MXFP4 (OCP microscaling): 4-bit values with one 8-bit shared exponent per 32;
//  * block FP8 (DeepSeek's release format): e4m3 values with one fp32 scale per 128x128 block.
// Norms, biases, attention sinks and tensors whose last dimension does not divide into groups stay
// unquantized, as MLX leaves them. A scheme can treat experts, routers and the embedding apart,
// which is how mixed formats such as gpt-oss "MXFP4-Q8" (MXFP4 experts, 8-bit rest) are described.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "lib/models/model.hpp"

namespace meshplan {

struct QuantSpec {
  enum class Mode { kFloat, kAffine, kMxfp4, kFp8Block };
  Mode mode = Mode::kFloat;
  int bits = 16;        // kFloat: 32 or 16; kAffine: 2..8; kMxfp4: 4; kFp8Block: 8
  int group_size = 64;  // kAffine: values per scale; kMxfp4: 32; kFp8Block: block edge (128)
  bool operator==(const QuantSpec&) const = default;
  std::string label() const;  // "bf16", "fp32", "q4g64", "mxfp4", "fp8"

  static QuantSpec bf16() { return {Mode::kFloat, 16, 0}; }
  static QuantSpec fp32() { return {Mode::kFloat, 32, 0}; }
  static QuantSpec affine(int bits, int group_size = 64) {
    return {Mode::kAffine, bits, group_size};
  }
  static QuantSpec mxfp4() { return {Mode::kMxfp4, 4, 32}; }
  static QuantSpec fp8_block() { return {Mode::kFp8Block, 8, 128}; }
};

// How a model's MoE routers are stored when the scheme quantizes: as the other weights, at 8 bits
// (mlx-lm's predicate for Qwen3-MoE and gpt-oss gates), or left in bf16 (DeepSeek's gate is not a
// Linear layer, so MLX never quantizes it).
enum class RouterQuant { kBase, k8bit, kFloat };

struct QuantScheme {
  std::string name;  // "4bit", "8bit", "bf16", "mxfp4-q8", "fp8", ...
  QuantSpec base;
  std::optional<QuantSpec> experts;    // routed experts, when they differ from `base`
  std::optional<QuantSpec> embedding;  // embedding and LM head, when they differ from `base`
  // Unset: the model family's policy (ArchConfig::router_quant), filled in by model_from_config.
  std::optional<RouterQuant> router;
  // Tensor-name suffix -> spec, for mixed quantization (MLX "quantization" per-path entries).
  std::vector<std::pair<std::string, QuantSpec>> overrides;

  QuantSpec spec_for(const TensorInfo& t) const;
};

// "bf16", "fp16", "fp32", "2bit" ... "8bit" (group 64; "4bit-g32" for another group size), "mxfp4"
// (every quantizable weight), "mxfp4-q8" / "mxfp4-q4" (MXFP4 experts, affine rest), "mxfp4-bf16"
// (MXFP4 experts, bf16 rest: gpt-oss as released), "int4-bf16" (4-bit experts in groups of 32,
// bf16 rest: Kimi K2 Thinking as released), "fp8" (block FP8: DeepSeek / Kimi K2 as released).
std::optional<QuantScheme> quant_scheme(std::string_view name);
// Known names, for messages.
std::string quant_names();

// Storage bytes of a tensor of logical shape `shape` (all dimensions multiplied: `params`).
uint64_t quantized_bytes(uint64_t params, const std::vector<int64_t>& shape, const QuantSpec& spec);
// Fills t.bytes and t.dtype.
void apply_quantization(TensorInfo& t, const QuantScheme& scheme);

}  // namespace meshplan
