#include "lib/remote/slurm_hostlist.hpp"

#include <fmt/format.h>

#include <cctype>

#include "lib/core/error.hpp"
#include "lib/core/units.hpp"

namespace meshplan {
namespace {

bool all_digits(std::string_view s) {
  if (s.empty() || s.size() > 9) return false;
  for (char c : s)
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  return true;
}

}  // namespace

std::vector<std::string> expand_bracket(std::string_view inside, std::string_view item,
                                        size_t limit) {
  std::vector<std::string> out;
  size_t pos = 0;
  while (true) {
    size_t comma = inside.find(',', pos);
    std::string_view entry =
        inside.substr(pos, comma == std::string_view::npos ? std::string_view::npos : comma - pos);
    // Slurm's _parse_single_range: LOW or LOW-HIGH, digits only, LOW <= HIGH; the width is LOW's.
    size_t dash = entry.find('-');
    std::string_view lo = entry.substr(0, dash);
    std::string_view hi = dash == std::string_view::npos ? lo : entry.substr(dash + 1);
    if (!all_digits(lo) || !all_digits(hi))
      throw input_error(
          "bad host list \"{}\": \"{}\" is not a number or LOW-HIGH range (expected e.g. "
          "gpu[01-04,07])",
          item, entry);
    long a = std::stol(std::string(lo)), b = std::stol(std::string(hi));
    if (b < a)
      throw input_error("bad host list \"{}\": range \"{}\" runs backwards (LOW must be <= HIGH)",
                        item, entry);
    if (static_cast<size_t>(b - a) >= limit || out.size() + static_cast<size_t>(b - a + 1) > limit)
      throw input_error("bad host list \"{}\": at most {} hosts", item, kMaxListedHosts);
    for (long i = a; i <= b; ++i)
      out.push_back(fmt::format("{:0{}}", i, lo.size()));
    if (comma == std::string_view::npos) break;
    pos = comma + 1;
  }
  return out;
}

std::vector<std::string> expand_slurm_hostlist(std::string_view text) {
  std::vector<std::string> out;
  auto expand_item = [&out](std::string_view item) {
    // Split into text parts and brackets: prefix0 [b0] prefix1 [b1] ... ; nothing after the last.
    std::vector<std::string> prefixes;
    std::vector<std::vector<std::string>> brackets;
    size_t pos = 0;
    size_t count = 1;
    while (pos < item.size()) {
      size_t open = item.find('[', pos);
      size_t close = item.find(']', pos);
      if (open == std::string_view::npos) {
        if (close != std::string_view::npos)
          throw input_error("bad host list \"{}\": ']' without '['", item);
        if (!brackets.empty())
          throw input_error("bad host list \"{}\": Slurm takes no text after a name's last bracket",
                            item);
        prefixes.emplace_back(item.substr(pos));
        pos = item.size();
        break;
      }
      if (close == std::string_view::npos || close < open || item.find('[', open + 1) < close)
        throw input_error("bad host list \"{}\": unbalanced brackets", item);
      prefixes.emplace_back(item.substr(pos, open - pos));
      brackets.push_back(
          expand_bracket(item.substr(open + 1, close - open - 1), item, kMaxListedHosts));
      count *= brackets.back().size();
      if (count > kMaxListedHosts)
        throw input_error("bad host list \"{}\": at most {} hosts", item, kMaxListedHosts);
      pos = close + 1;
    }
    if (brackets.empty()) {
      out.push_back(prefixes.empty() ? std::string() : prefixes.front());
      return;
    }
    // Odometer over the brackets, the last turning fastest, then the first, second, ... (see the
    // header: Slurm's recursion from the last bracket outwards).
    const size_t k = brackets.size();
    std::vector<size_t> order = {k - 1};
    for (size_t b = 0; b + 1 < k; ++b)
      order.push_back(b);
    std::vector<size_t> pick(k, 0);
    for (size_t n = 0; n < count; ++n) {
      std::string name;
      for (size_t b = 0; b < k; ++b)
        name += prefixes[b] + brackets[b][pick[b]];
      out.push_back(std::move(name));
      for (size_t b : order) {
        if (++pick[b] < brackets[b].size()) break;
        pick[b] = 0;
      }
    }
  };
  std::string item;
  int depth = 0;
  auto flush = [&] {
    if (!item.empty()) expand_item(item);
    item.clear();
    if (out.size() > kMaxListedHosts)
      throw input_error("the host list names more than {} hosts", kMaxListedHosts);
  };
  for (char c : text) {
    if (c == '[') ++depth;
    if (c == ']') --depth;
    bool space = std::isspace(static_cast<unsigned char>(c));
    if ((c == ',' && depth == 0) || (space && depth == 0))
      flush();
    else if (!space)
      item += c;
    else
      throw input_error("bad host list \"{}\": white space inside brackets", trim(text));
  }
  if (depth != 0) throw input_error("bad host list \"{}\": unbalanced brackets", trim(text));
  flush();
  return out;
}

}  // namespace meshplan
