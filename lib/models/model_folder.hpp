// A model read from disk: a Hugging Face or MLX folder (config.json and *.safetensors, with or
// without model.safetensors.index.json), or a bare config.json. Every tensor's bytes come from the
// safetensors headers (never the weights); the config supplies the architecture (layers, heads,
// experts, windows) and, for quantized MLX files, the group sizes that give logical shapes.
// Without weight files the model is computed from the architecture at the config's quantization.
#pragma once

#include <string>
#include <string_view>

#include "lib/core/file_system.hpp"
#include "lib/models/model.hpp"

namespace meshplan {

// `path`: a folder or a .json config file. `quant` (may be empty) computes the architecture at that
// quantization instead of reading the weight files ("what would this model take at 4bit").
ModelDesc load_model_folder(const std::string& path, std::string_view quant, const FileSystem& fs);

}  // namespace meshplan
