#include "lib/core/text_table.hpp"

#include <algorithm>

namespace meshplan {
namespace {

// Display width: count UTF-8 code points, not bytes.
size_t width(const std::string& s) {
  size_t w = 0;
  for (unsigned char c : s)
    w += (c & 0xC0) != 0x80;
  return w;
}

}  // namespace

TextTable::TextTable(std::vector<std::string> header, std::vector<Align> align)
    : header_(std::move(header)), align_(std::move(align)) {
  align_.resize(header_.size(), Align::kLeft);
}

void TextTable::add_row(std::vector<std::string> row) {
  row.resize(header_.size());
  rows_.push_back(std::move(row));
}

std::string TextTable::render() const {
  std::vector<size_t> w(header_.size(), 0);
  for (size_t c = 0; c < header_.size(); ++c)
    w[c] = width(header_[c]);
  for (const auto& r : rows_)
    for (size_t c = 0; c < r.size(); ++c)
      w[c] = std::max(w[c], width(r[c]));
  auto line = [&](const std::vector<std::string>& r) {
    std::string out;
    for (size_t c = 0; c < r.size(); ++c) {
      std::string pad(w[c] - width(r[c]), ' ');
      bool last = c + 1 == r.size();
      if (align_[c] == Align::kRight)
        out += pad + r[c];
      else
        out += r[c] + (last ? "" : pad);
      if (!last) out += "  ";
    }
    while (!out.empty() && out.back() == ' ')
      out.pop_back();
    return out + "\n";
  };
  std::string out = line(header_);
  for (const auto& r : rows_)
    out += line(r);
  return out;
}

}  // namespace meshplan
