// What a stored tensor is, from its name alone: which transformer block it belongs to, its role
// (embedding, head, attention, MLP, router, routed or shared expert, norm), whether it holds one
// expert or a stack of them, and which logical tensor it is part of. Quantized formats split one
// logical weight over several stored tensors, all attributed to it:
//   MLX affine / MXFP4:   X.weight (packed uint32), X.scales, X.biases
//   block FP8:            X.weight (F8_E4M3), X.weight_scale_inv
//   gpt-oss release:      X_blocks (packed fp4), X_scales
//   compressed-tensors:   X.weight_packed, X.weight_scale, X.weight_shape
#pragma once

#include <string>
#include <string_view>

#include "lib/models/model.hpp"

namespace meshplan {

enum class TensorPart {
  kPlain,   // the tensor is the logical tensor (floats, biases, norms)
  kValues,  // packed quantized values
  kScales,  // per-group scales (or block exponents)
  kBiases,  // per-group quantization biases (MLX affine)
  kMeta,    // bookkeeping stored beside the values (compressed-tensors weight_shape)
};

struct TensorName {
  std::string logical;  // e.g. "model.layers.3.mlp.switch_mlp.up_proj.weight"
  TensorPart part = TensorPart::kPlain;
  int layer = -1;  // -1: outside the transformer blocks
  TensorRole role = TensorRole::kOther;
  int expert = -1;       // one-tensor-per-expert layouts: the expert's index
  bool stacked = false;  // holds every routed expert of its layer
};

TensorName classify_tensor(std::string_view stored_name);

}  // namespace meshplan
