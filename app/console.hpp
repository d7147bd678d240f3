// Where the CLI writes: data on stdout, messages on stderr; colour only on a terminal and never
// with NO_COLOR; -v adds detail, -q keeps only errors and data.
#pragma once

#include <iosfwd>
#include <string>
#include <string_view>

namespace meshplan {

class Console {
 public:
  enum class Color { kNone, kRed, kGreen, kYellow, kBold, kDim };

  Console(std::ostream& out, std::ostream& err, bool out_color, bool err_color);
  // Decides colour from isatty() and NO_COLOR.
  static Console standard();

  void data(std::string_view text);   // stdout, as is
  void error(std::string_view text);  // "meshplan: error: ..."
  void warn(std::string_view text);   // "meshplan: warning: ..." (not with -q)
  void note(std::string_view text);   // plain message (not with -q)
  void info(std::string_view text);   // only with -v
  // Wraps text in colour codes when stdout is coloured.
  std::string paint(std::string_view text, Color color) const;
  bool stderr_is_terminal() const { return err_color_; }

  int verbosity = 0;  // -1 quiet, 0 normal, 1+ verbose
  std::ostream& out_stream() { return out_; }
  std::ostream& err_stream() { return err_; }

 private:
  std::string paint_err(std::string_view text, Color color) const;
  std::ostream& out_;
  std::ostream& err_;
  bool out_color_;
  bool err_color_;
};

}  // namespace meshplan
