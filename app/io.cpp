#include <iostream>
#include <iterator>
#include <regex>

#include "app/commands.hpp"
#include "lib/error.hpp"
#include "lib/units.hpp"

namespace meshplan {

std::string read_input(AppContext& ctx, const std::string& path) {
  if (path == "-") {
    std::string text((std::istreambuf_iterator<char>(std::cin)), std::istreambuf_iterator<char>());
    return text;
  }
  return ctx.fs.read_file(path);
}

void write_output(AppContext& ctx, const std::string& path, const std::string& content) {
  if (path == "-") {
    ctx.console.data(content);
    return;
  }
  ctx.fs.write_file_atomic(path, content);
  ctx.console.info("wrote " + path);
}

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> out;
  std::string item;
  int depth = 0;
  auto flush = [&] {
    std::string t = trim(item);
    item.clear();
    if (t.empty()) return;
    static const std::regex range(R"(^(.*)\[(\d+)-(\d+)\](.*)$)");
    std::smatch m;
    if (std::regex_match(t, m, range)) {
      const std::string& lo = m[2];
      long a = std::stol(lo), b = std::stol(m[3]);
      if (b < a || b - a > 4096) throw input_error("bad host range \"{}\": expected [low-high]", t);
      for (long i = a; i <= b; ++i) {
        std::string num = std::to_string(i);
        if (lo.size() > 1 && lo[0] == '0' && num.size() < lo.size()) num = std::string(lo.size() - num.size(), '0') + num;
        out.push_back(std::string(m[1]) + num + std::string(m[4]));
      }
    } else {
      out.push_back(t);
    }
  };
  for (char c : text) {
    if (c == '[') ++depth;
    if (c == ']') --depth;
    if (c == ',' && depth == 0) flush();
    else item += c;
  }
  flush();
  return out;
}

}  // namespace meshplan
