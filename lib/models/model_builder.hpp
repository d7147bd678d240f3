// Turns a tensor list with byte sizes into per-layer figures (ModelDesc).
#pragma once

#include <string>
#include <vector>

#include "lib/models/model.hpp"
#include "lib/models/model_config.hpp"
#include "lib/models/quantization.hpp"

namespace meshplan {

struct ModelMeta {
  std::string name;
  std::string display_name;
  std::string family;
  std::string quantization;
  std::string source;
};

// `tensors` must have their bytes filled. Experts may be stacked (MLX switch_mlp) or one tensor
// per expert (Hugging Face layout); either way expert bytes are divided by the config's count.
ModelDesc build_model(const ArchConfig& config, std::vector<TensorInfo> tensors,
                      const ModelMeta& meta);

// The model of an architecture at a quantization (tensors generated from the config).
ModelDesc model_from_config(const ArchConfig& config, const QuantScheme& scheme,
                            const ModelMeta& meta);

}  // namespace meshplan
