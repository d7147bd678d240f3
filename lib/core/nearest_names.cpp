#include "lib/core/nearest_names.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "lib/core/units.hpp"

namespace meshplan {

size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j)
    prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j)
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] != b[j - 1])});
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

namespace {

// The first dash-separated part, and the first two: "deepseek-v3-4bit" -> "deepseek", "v3".
std::string stem(std::string_view s) {
  return std::string(s.substr(0, s.find('-')));
}

}  // namespace

std::vector<std::string> nearest_names(std::string_view word, const std::vector<std::string>& names,
                                       size_t max) {
  const std::string w = to_lower(word);
  const size_t limit = std::max<size_t>(2, w.size() / 3);
  std::vector<std::pair<size_t, std::string>> scored;
  for (const auto& name : names) {
    const std::string n = to_lower(name);
    size_t d = edit_distance(w, n);
    // Same family name and a close rest (a version or a quantization off) still counts.
    if (d > limit && n.starts_with(w + "-"))  // a family: "m3-ultra" -> "m3-ultra-80c"
      d = limit;
    else if (d > limit && stem(w) == stem(n) && stem(w).size() >= 3)
      d = limit + 1 + d / 4;
    else if (d > limit)
      continue;
    scored.emplace_back(d, name);
  }
  std::stable_sort(scored.begin(), scored.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::string> out;
  for (size_t i = 0; i < scored.size() && out.size() < max; ++i)
    out.push_back(scored[i].second);
  return out;
}

std::string did_you_mean(std::string_view word, const std::vector<std::string>& names) {
  std::vector<std::string> near = nearest_names(word, names);
  if (near.empty()) return "";
  std::string list;
  for (size_t i = 0; i < near.size(); ++i)
    list += fmt::format("{}\"{}\"", i == 0 ? "" : i + 1 == near.size() ? " or " : ", ", near[i]);
  return fmt::format(" (did you mean {}?)", list);
}

}  // namespace meshplan
