#include "lib/core/embedded_data.hpp"

#include "lib/core/error.hpp"

namespace meshplan {

std::string_view embedded_file(std::string_view path) {
  for (const auto& f : embedded_files()) {
    if (f.path == path) return f.content;
  }
  throw internal_error("embedded file {} is missing from this build", path);
}

}  // namespace meshplan
