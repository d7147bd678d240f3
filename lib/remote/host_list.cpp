#include "lib/remote/host_list.hpp"

#include <fmt/format.h>

#include <cctype>
#include <set>

#include "lib/core/error.hpp"
#include "lib/core/units.hpp"
#include "lib/remote/slurm_hostlist.hpp"

namespace meshplan {

std::string HostTarget::spec() const {
  std::string s = user.empty() ? host : user + "@" + host;
  if (port) s += fmt::format(":{}", port);
  return s;
}

std::vector<std::string> expand_ranges(std::string_view item) {
  std::string t = trim(item);
  constexpr const char* kForm =
      "expected NAME[LOW-HIGH], e.g. mac[1-4], mac[01-04] or gpu[01-04,07]";
  constexpr size_t kMaxHosts = kMaxListedHosts;
  // The item as parts, each a list of alternatives (text between ranges has one); the names are
  // every combination, the first range varying slowest (mac[1-2]-p[1-2]: mac1-p1, mac1-p2, ...).
  // The names of a whole item are bounded like those of one range.
  std::vector<std::vector<std::string>> parts;
  size_t count = 1;
  size_t pos = 0;
  while (true) {
    size_t open = t.find('[', pos), close = t.find(']', pos);
    if (open == std::string::npos && close == std::string::npos) break;
    if (open == std::string::npos || close == std::string::npos || close < open)
      throw input_error("bad host range \"{}\": {}", t, kForm);
    // Inside a bracket, Slurm's forms: numbers and LOW-HIGH ranges separated by commas
    // (gpu[01-04,07]), each padded to the width of its LOW (lib/remote/slurm_hostlist).
    std::vector<std::string> numbers =
        expand_bracket(std::string_view(t).substr(open + 1, close - open - 1), t, kMaxHosts);
    if (count * numbers.size() > kMaxHosts)
      throw input_error(
          "bad host range \"{}\": expected [low-high] with low <= high (at most 4097 hosts)", t);
    count *= numbers.size();
    parts.push_back({t.substr(pos, open - pos)});
    parts.push_back(std::move(numbers));
    pos = close + 1;
  }
  parts.push_back({t.substr(pos)});
  std::vector<std::string> out;
  out.reserve(count);
  std::vector<size_t> pick(parts.size(), 0);
  for (size_t n = 0; n < count; ++n) {
    std::string name;
    for (size_t p = 0; p < parts.size(); ++p)
      name += parts[p][pick[p]];
    out.push_back(std::move(name));
    for (size_t p = parts.size(); p-- > 0;) {
      if (++pick[p] < parts[p].size()) break;
      pick[p] = 0;
    }
  }
  return out;
}

std::vector<std::string> expand_host_list(std::string_view text) {
  std::vector<std::string> out;
  std::string item;
  int depth = 0;
  auto flush = [&] {
    std::string t = trim(item);
    item.clear();
    if (t.empty()) return;
    for (auto& x : expand_ranges(t))
      out.push_back(std::move(x));
    if (out.size() > kMaxListedHosts)
      throw input_error("the host list names more than {} hosts", kMaxListedHosts);
  };
  for (char c : text) {
    if (c == '[') ++depth;
    if (c == ']') --depth;
    if (c == ',' && depth == 0)
      flush();
    else
      item += c;
  }
  flush();
  return out;
}

bool valid_ssh_word(std::string_view word) {
  if (word.empty() || word[0] == '-') return false;
  for (char c : word) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-'))
      return false;
  }
  return true;
}

HostTarget parse_target(std::string_view text, std::string_view where) {
  std::string t = trim(text);
  constexpr const char* kForm =
      "[user@]host[:port] with letters, digits, '.', '_' or '-' (not starting with '-')";
  HostTarget target;
  std::string rest = t;
  if (auto at = rest.find('@'); at != std::string::npos) {
    target.user = rest.substr(0, at);
    rest = rest.substr(at + 1);
    if (!valid_ssh_word(target.user))
      throw input_error("{}: bad user \"{}\" in \"{}\": expected {}", where, target.user, t, kForm);
  }
  if (auto colon = rest.find(':'); colon != std::string::npos) {
    std::string p = rest.substr(colon + 1);
    rest = rest.substr(0, colon);
    bool digits = !p.empty() && p.size() <= 5;
    for (char c : p)
      digits = digits && std::isdigit(static_cast<unsigned char>(c));
    long v = digits ? std::stol(p) : 0;
    if (!digits || v < 1 || v > 65535)
      throw input_error("{}: bad port \"{}\" in \"{}\": expected a number 1-65535", where, p, t);
    target.port = static_cast<int>(v);
  }
  if (!valid_ssh_word(rest)) throw input_error("{}: bad host \"{}\": expected {}", where, t, kForm);
  target.host = rest;
  target.name = rest;
  return target;
}

std::vector<HostTarget> parse_inventory(std::string_view text, const std::string& file_name) {
  std::vector<HostTarget> out;
  size_t line_no = 0;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string line(text.substr(pos, end - pos));
    pos = end + 1;
    ++line_no;
    if (auto hash = line.find('#'); hash != std::string::npos) line.resize(hash);
    std::vector<std::string> words;
    size_t i = 0;
    while (i < line.size()) {
      while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i])))
        ++i;
      size_t j = i;
      while (j < line.size() && !std::isspace(static_cast<unsigned char>(line[j])))
        ++j;
      if (j > i) words.push_back(line.substr(i, j - i));
      i = j;
    }
    if (words.empty()) continue;
    std::string where = fmt::format("{}:{}", file_name, line_no);
    if (words.size() > 2)
      throw input_error(
          "{}: expected \"[user@]host[:port]\" or \"NAME [user@]host[:port]\", got {} words", where,
          words.size());
    std::vector<std::string> targets = expand_ranges(words.back());
    std::vector<std::string> names;
    if (words.size() == 2) {
      names = expand_ranges(words[0]);
      if (names.size() != targets.size())
        throw input_error("{}: the name expands to {} hosts but the target to {}", where,
                          names.size(), targets.size());
    }
    for (size_t k = 0; k < targets.size(); ++k) {
      HostTarget t = parse_target(targets[k], where);
      if (!names.empty()) {
        if (!valid_ssh_word(names[k]))
          throw input_error("{}: bad host name \"{}\": expected letters, digits, '.', '_' or '-'",
                            where, names[k]);
        t.name = names[k];
      }
      out.push_back(std::move(t));
    }
  }
  if (out.empty())
    throw input_error("{}: no hosts listed (one [user@]host[:port] per line)", file_name);
  check_unique_names(out);
  return out;
}

void check_unique_names(const std::vector<HostTarget>& targets) {
  std::set<std::string> seen;
  for (const auto& t : targets) {
    if (!seen.insert(t.name).second)
      throw input_error("host \"{}\" is listed twice; every host needs its own name", t.name);
  }
}

}  // namespace meshplan
