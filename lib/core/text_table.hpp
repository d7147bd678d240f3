// Plain-text tables with columns sized to their content.
#pragma once

#include <string>
#include <vector>

namespace meshplan {

class TextTable {
 public:
  enum class Align { kLeft, kRight };
  explicit TextTable(std::vector<std::string> header, std::vector<Align> align = {});
  void add_row(std::vector<std::string> row);
  // Rows joined by newlines, columns separated by two spaces, no trailing spaces.
  std::string render() const;

 private:
  std::vector<std::string> header_;
  std::vector<Align> align_;
  std::vector<std::vector<std::string>> rows_;
};

}  // namespace meshplan
