// The built-in models (embedded lib/data/models.json) and how names resolve:
// "deepseek-v3.1-4bit", "deepseek-v3.1" (first listed quantization), "deepseek-v3.1-native" (the
// release format), or a converted repository id such as "mlx-community/DeepSeek-V3.1-4bit".
#pragma once

#include <string>
#include <vector>

#include "lib/models/model.hpp"
#include "lib/models/model_config.hpp"

namespace meshplan {

struct ModelEntry {
  std::string name;
  std::string display_name;
  std::string family;
  std::string source;
  std::vector<std::string> quantizations;  // the first is the default
  std::string native;                      // the release format, e.g. "fp8", "mxfp4-bf16", "bf16"
  std::vector<std::pair<std::string, std::string>> repos;  // quantization -> repo id
  ArchConfig config;
};

class ModelCatalog {
 public:
  static const ModelCatalog& builtin();
  explicit ModelCatalog(std::string_view models_json);

  const std::vector<ModelEntry>& entries() const { return entries_; }
  const ModelEntry* find(std::string_view name) const;
  // Resolves a model name; `quant` (may be empty) overrides the name's quantization. Unknown
  // names are input errors listing the known ones.
  ModelDesc resolve(std::string_view name, std::string_view quant) const;
  std::string names() const;
  // The model of an entry at a quantization ("native" allowed).
  ModelDesc model(const ModelEntry& entry, std::string_view quant) const;

 private:
  std::vector<ModelEntry> entries_;
};

}  // namespace meshplan
