#include "lib/core/shell_quote.hpp"

#include <cctype>

namespace meshplan {

std::string shell_quote(std::string_view value) {
  if (value.empty()) return "''";
  bool safe = true;
  for (char c : value)
    safe = safe && (std::isalnum(static_cast<unsigned char>(c)) ||
                    std::string_view("@%+=:,./-_").find(c) != std::string_view::npos);
  if (safe) return std::string(value);
  std::string out = "'";
  for (char c : value)
    out += c == '\'' ? std::string("'\"'\"'") : std::string(1, c);
  return out + "'";
}

}  // namespace meshplan
