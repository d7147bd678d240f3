#include "lib/models/model_loader.hpp"

#include "lib/models/model_catalog.hpp"
#include "lib/models/model_folder.hpp"

namespace meshplan {

ModelDesc load_model(std::string_view name_or_path, std::string_view quant, const FileSystem& fs) {
  const std::string name(name_or_path);
  if (!name.empty() && fs.exists(name)) return load_model_folder(name, quant, fs);
  return ModelCatalog::builtin().resolve(name, quant);
}

}  // namespace meshplan
