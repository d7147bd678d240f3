#include "lib/core/units.hpp"

#include <fmt/format.h>

#include <cctype>
#include <charconv>
#include <cmath>

namespace meshplan {
namespace {

// Splits "512 GiB" into 512 and "gib" (lower case, spaces dropped).
bool split_number(std::string_view text, double* value, std::string* unit) {
  std::string t = trim(text);
  if (t.empty()) return false;
  size_t i = 0;
  while (i < t.size() && (std::isdigit(static_cast<unsigned char>(t[i])) || t[i] == '.' ||
                          t[i] == 'e' || t[i] == 'E' || t[i] == '+' || t[i] == '-')) {
    // Stop at an 'e' that starts a unit rather than an exponent.
    if ((t[i] == 'e' || t[i] == 'E') &&
        (i + 1 >= t.size() || !(std::isdigit(static_cast<unsigned char>(t[i + 1])) ||
                                t[i + 1] == '-' || t[i + 1] == '+')))
      break;
    ++i;
  }
  if (i == 0) return false;
  std::string num = t.substr(0, i);
  char* end = nullptr;
  double v = std::strtod(num.c_str(), &end);
  if (end != num.c_str() + num.size() || !std::isfinite(v)) return false;
  *value = v;
  std::string u;
  for (char c : t.substr(i)) {
    if (!std::isspace(static_cast<unsigned char>(c))) u += static_cast<char>(std::tolower(c));
  }
  *unit = u;
  return true;
}

}  // namespace

std::optional<int64_t> parse_token_count(std::string_view text) {
  std::string t = trim(text);
  int64_t scale = 1;
  if (!t.empty() && (t.back() == 'k' || t.back() == 'K')) {
    scale = 1024;
    t.pop_back();
  } else if (!t.empty() && (t.back() == 'm' || t.back() == 'M')) {
    scale = 1024 * 1024;
    t.pop_back();
  }
  if (t.empty() || t.size() > 12 || t.find_first_not_of("0123456789") != std::string::npos)
    return std::nullopt;
  int64_t n = std::stoll(t) * scale;
  if (n <= 0) return std::nullopt;
  return n;
}

std::string trim(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b])))
    ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1])))
    --e;
  return std::string(s.substr(b, e - b));
}

std::string to_lower(std::string_view s) {
  std::string r(s);
  for (auto& c : r)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return r;
}

std::optional<double> parse_bytes(std::string_view text) {
  double v = 0;
  std::string unit;
  if (!split_number(text, &v, &unit)) return std::nullopt;
  double mult = 0;
  if (unit.empty() || unit == "b")
    mult = 1;
  else if (unit == "kb")
    mult = 1e3;
  else if (unit == "mb")
    mult = 1e6;
  else if (unit == "gb")
    mult = 1e9;
  else if (unit == "tb")
    mult = 1e12;
  else if (unit == "kib")
    mult = 1024.0;
  else if (unit == "mib")
    mult = 1024.0 * 1024;
  else if (unit == "gib")
    mult = 1024.0 * 1024 * 1024;
  else if (unit == "tib")
    mult = 1024.0 * 1024 * 1024 * 1024;
  else
    return std::nullopt;
  return v * mult;
}

std::optional<double> parse_gbps(std::string_view text) {
  std::string t = to_lower(trim(text));
  if (t.rfind("up to", 0) == 0) t = trim(t.substr(5));
  double v = 0;
  std::string unit;
  if (!split_number(t, &v, &unit)) return std::nullopt;
  if (unit.empty() || unit == "gbps" || unit == "gb/s" || unit == "gbit/s" || unit == "gbit")
    return v;
  if (unit == "mbps" || unit == "mb/s" || unit == "mbit/s") return v / 1000.0;
  if (unit == "tbps" || unit == "tb/s") return v * 1000.0;
  return std::nullopt;
}

std::optional<double> parse_duration(std::string_view text) {
  double v = 0;
  std::string unit;
  if (!split_number(text, &v, &unit)) return std::nullopt;
  if (unit == "s") return v;
  if (unit == "ms") return v * 1e-3;
  if (unit == "us" || unit == "µs") return v * 1e-6;
  if (unit == "ns") return v * 1e-9;
  return std::nullopt;
}

std::string format_ranges(const std::vector<int>& sorted) {
  std::string out;
  for (size_t i = 0; i < sorted.size();) {
    size_t j = i;
    while (j + 1 < sorted.size() && sorted[j + 1] == sorted[j] + 1)
      ++j;
    out += (out.empty() ? "" : ", ") +
           (i == j ? std::to_string(sorted[i]) : fmt::format("{}-{}", sorted[i], sorted[j]));
    i = j + 1;
  }
  return out;
}

std::string format_bytes(double bytes) {
  const char* units[] = {"B", "kB", "MB", "GB", "TB"};
  int u = 0;
  while (std::fabs(bytes) >= 1000.0 && u < 4) {
    bytes /= 1000.0;
    ++u;
  }
  if (u == 0) return fmt::format("{:.0f} B", bytes);
  return fmt::format("{:.1f} {}", bytes, units[u]);
}

std::string format_percent(double share) {
  return fmt::format("{:.1f} %", share * 100);
}

std::string format_duration(double s) {
  if (s >= 1.0) return fmt::format("{:.2f} s", s);
  if (s >= 1e-3) return fmt::format("{:.2f} ms", s * 1e3);
  return fmt::format("{:.0f} us", s * 1e6);
}

std::string format_rate(double value, std::string_view unit) {
  const char* prefixes[] = {"", "k", "M", "G", "T", "P", "E"};
  int p = 0;
  while (std::fabs(value) >= 999.5 && p < 6) {
    value /= 1000.0;
    ++p;
  }
  int decimals = std::fabs(value) >= 99.95 ? 0 : std::fabs(value) >= 9.995 ? 1 : 2;
  return fmt::format("{:.{}f} {}{}", value, decimals, prefixes[p], unit);
}

std::string format_gib(double bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (std::fabs(bytes) >= 1024.0 && u < 4) {
    bytes /= 1024.0;
    ++u;
  }
  if (u == 0) return fmt::format("{:.0f} B", bytes);
  return fmt::format("{:.1f} {}", bytes, units[u]);
}

}  // namespace meshplan
