#include "app/console.hpp"

#include <unistd.h>

#include <cstdlib>
#include <iostream>

namespace meshplan {
namespace {

const char* code(Console::Color c) {
  switch (c) {
    case Console::Color::kRed:
      return "\033[31m";
    case Console::Color::kGreen:
      return "\033[32m";
    case Console::Color::kYellow:
      return "\033[33m";
    case Console::Color::kBold:
      return "\033[1m";
    case Console::Color::kDim:
      return "\033[2m";
    case Console::Color::kNone:
      return "";
  }
  return "";
}

std::string wrap(std::string_view text, Console::Color c, bool on) {
  if (!on || c == Console::Color::kNone) return std::string(text);
  return std::string(code(c)) + std::string(text) + "\033[0m";
}

}  // namespace

Console::Console(std::ostream& out, std::ostream& err, bool out_color, bool err_color)
    : out_(out), err_(err), out_color_(out_color), err_color_(err_color) {}

Console Console::standard() {
  const char* no_color = std::getenv("NO_COLOR");
  const char* term = std::getenv("TERM");
  bool allowed = !(no_color && *no_color) && !(term && std::string_view(term) == "dumb");
  return Console(std::cout, std::cerr, allowed && ::isatty(STDOUT_FILENO),
                 allowed && ::isatty(STDERR_FILENO));
}

void Console::data(std::string_view text) {
  out_ << text << std::flush;
}

void Console::error(std::string_view text) {
  err_ << paint_err("meshplan: error: ", Color::kRed) << text << "\n" << std::flush;
}

void Console::warn(std::string_view text) {
  if (verbosity < 0) return;
  err_ << paint_err("meshplan: warning: ", Color::kYellow) << text << "\n" << std::flush;
}

void Console::note(std::string_view text) {
  if (verbosity < 0) return;
  err_ << paint_err("meshplan: note: ", Color::kDim) << text << "\n" << std::flush;
}

void Console::info(std::string_view text) {
  if (verbosity < 1) return;
  err_ << paint_err(text, Color::kDim) << "\n" << std::flush;
}

std::string Console::paint(std::string_view text, Color color) const {
  return wrap(text, color, out_color_);
}

std::string Console::paint_err(std::string_view text, Color color) const {
  return wrap(text, color, err_color_);
}

}  // namespace meshplan
