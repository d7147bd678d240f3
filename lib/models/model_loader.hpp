// The one way commands get a model: a path that exists is read from disk (a model folder or a
// config.json, lib/model_folder.hpp); anything else is a catalog name (lib/model_catalog.hpp).
#pragma once

#include <string_view>

#include "lib/core/file_system.hpp"
#include "lib/models/model.hpp"

namespace meshplan {

// `quant` (may be empty) overrides the quantization: of the catalog name, or, for a path, computes
// its architecture at that quantization instead of reading its weight files.
ModelDesc load_model(std::string_view name_or_path, std::string_view quant, const FileSystem& fs);

}  // namespace meshplan
