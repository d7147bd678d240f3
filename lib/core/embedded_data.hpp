// Files compiled into the binary (lib/data/*, templates/*), keyed by their path in the source tree.
#pragma once

#include <string_view>
#include <vector>

namespace meshplan {

struct EmbeddedFile {
  std::string_view path;  // e.g. "lib/data/chips.json"
  std::string_view content;
};

const std::vector<EmbeddedFile>& embedded_files();

// The content of an embedded file; throws an internal error when it is missing.
std::string_view embedded_file(std::string_view path);

}  // namespace meshplan
