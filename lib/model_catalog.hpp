// The built-in models (embedded lib/data/models.json) and how names resolve:
// "deepseek-v3.1-4bit", "deepseek-v3.1" (first listed quantization), or an mlx-community repo id.
#pragma once

#include <string>
#include <vector>

#include "lib/model.hpp"
#include "lib/model_config.hpp"

namespace meshplan {

struct ModelEntry {
  std::string name;
  std::string display_name;
  std::string family;
  std::string source;
  std::vector<std::string> quantizations;
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

 private:
  std::vector<ModelEntry> entries_;
};

}  // namespace meshplan
