#include <fmt/format.h>

#include <chrono>
#include <iostream>

#include "app/commands.hpp"
#include "lib/core/error.hpp"
#include "lib/core/units.hpp"
#include "lib/remote/host_list.hpp"

namespace meshplan {

std::string read_input(AppContext& ctx, const std::string& path) {
  if (path == "-") return read_bounded(std::cin, "standard input");
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

std::string today() {
  auto days = std::chrono::floor<std::chrono::days>(std::chrono::system_clock::now());
  std::chrono::year_month_day d{days};
  return fmt::format("{:04}-{:02}-{:02}", static_cast<int>(d.year()),
                     static_cast<unsigned>(d.month()), static_cast<unsigned>(d.day()));
}

std::vector<std::string> split_list(const std::string& text) {
  return expand_host_list(text);
}

}  // namespace meshplan
