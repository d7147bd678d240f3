#include "lib/core/text_template.hpp"

#include "lib/core/embedded_data.hpp"
#include "lib/core/error.hpp"

namespace meshplan {

std::string fill_template(std::string_view text, const std::map<std::string, std::string>& values) {
  std::string out;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t open = text.find("{{", pos);
    if (open == std::string_view::npos) break;
    size_t close = text.find("}}", open + 2);
    if (close == std::string_view::npos) break;
    out.append(text.substr(pos, open - pos));
    std::string key(text.substr(open + 2, close - open - 2));
    auto it = values.find(key);
    if (it == values.end())
      throw internal_error("template placeholder {{{{{}}}}} has no value", key);
    out += it->second;
    pos = close + 2;
  }
  out.append(text.substr(pos));
  return out;
}

std::string render_template(std::string_view name,
                            const std::map<std::string, std::string>& values) {
  return fill_template(embedded_file("templates/" + std::string(name)), values);
}

}  // namespace meshplan
