#include "lib/cluster/value_readers.hpp"

#include <fmt/format.h>

#include <cmath>
#include <regex>

#include "lib/core/units.hpp"

namespace meshplan {

bool valid_ipv4(std::string_view address) {
  int parts = 0;
  size_t i = 0;
  while (i <= address.size()) {
    size_t j = address.find('.', i);
    if (j == std::string_view::npos) j = address.size();
    std::string_view part = address.substr(i, j - i);
    if (part.empty() || part.size() > 3) return false;
    int v = 0;
    for (char c : part) {
      if (!std::isdigit(static_cast<unsigned char>(c))) return false;
      v = v * 10 + (c - '0');
    }
    if (v > 255) return false;
    ++parts;
    i = j + 1;
  }
  return parts == 4;
}
namespace {

constexpr const char* kSizeForm = "a size such as 512GiB, 192GB or a number of bytes";

}  // namespace

uint64_t read_size(const DocNode& n) {
  double v = 0;
  if (n.is_number()) {
    v = n.as_number();
  } else if (n.is_string()) {
    auto parsed = parse_bytes(n.text());
    if (!parsed) n.fail(fmt::format("expected {}, got {}", kSizeForm, n.describe_value()));
    v = *parsed;
  } else {
    n.fail(fmt::format("expected {}, got {}", kSizeForm, n.describe_value()));
  }
  if (v < 0)
    n.fail(fmt::format("expected {} (not negative), got {}", kSizeForm, n.describe_value()));
  return static_cast<uint64_t>(std::llround(v));
}

std::string read_date(const DocNode& n) {
  std::string text = n.as_string();
  static const std::regex date(R"(\d{4}-\d{2}-\d{2})");
  if (!std::regex_match(text, date))
    n.fail(fmt::format("expected the date of the measurement, YYYY-MM-DD, got \"{}\"", text));
  return text;
}

// Bytes per second: a number, or "819GB/s", "819 GBps".
double read_rate(const DocNode& n) {
  if (n.is_number()) {
    double v = n.as_number();
    if (v <= 0) n.fail(fmt::format("expected a positive rate in bytes/s, got {}", n.text()));
    return v;
  }
  if (n.is_string()) {
    std::string t = to_lower(trim(n.text()));
    for (const char* suffix : {"/s", "ps"}) {
      std::string s(suffix);
      if (t.size() > s.size() && t.compare(t.size() - s.size(), s.size(), s) == 0) {
        auto v = parse_bytes(t.substr(0, t.size() - s.size()));
        if (v && *v > 0) return *v;
      }
    }
  }
  n.fail(fmt::format("expected a rate such as 819GB/s or a number of bytes per second, got {}",
                     n.describe_value()));
}

// FLOP/s: a number, or "28.6T", "28.6 TFLOPS", "989e12".
double read_flops(const DocNode& n) {
  if (n.is_number()) {
    double v = n.as_number();
    if (v <= 0) n.fail(fmt::format("expected a positive FLOP/s figure, got {}", n.text()));
    return v;
  }
  if (n.is_string()) {
    std::string t = to_lower(trim(n.text()));
    for (const char* suffix : {"flop/s", "flops"}) {
      std::string s(suffix);
      if (t.size() > s.size() && t.compare(t.size() - s.size(), s.size(), s) == 0)
        t = trim(t.substr(0, t.size() - s.size()));
    }
    double mult = 1;
    if (!t.empty() && (t.back() == 't' || t.back() == 'g' || t.back() == 'p')) {
      mult = t.back() == 't' ? 1e12 : t.back() == 'g' ? 1e9 : 1e15;
      t.pop_back();
    }
    char* end = nullptr;
    double v = std::strtod(t.c_str(), &end);
    if (!t.empty() && end == t.c_str() + t.size() && v > 0) return v * mult;
  }
  n.fail(fmt::format("expected FLOP/s such as 28.6T, \"28.6 TFLOPS\" or a number, got {}",
                     n.describe_value()));
}

double read_positive(const DocNode& n, std::string_view what) {
  double v = n.as_number();
  if (v <= 0) n.fail(fmt::format("expected a positive {}, got {}", what, n.text()));
  return v;
}

double read_fraction(const DocNode& n) {
  double v = n.as_number();
  if (v <= 0 || v > 1) n.fail(fmt::format("expected a fraction in (0, 1], got {}", n.text()));
  return v;
}

LinkKind read_kind(const DocNode& n) {
  auto kind = find_link_kind(n.as_string());
  if (!kind)
    n.fail(
        fmt::format("unknown link kind \"{}\"; expected one of: {}", n.text(), link_kind_names()));
  return *kind;
}

std::string read_ipv4(const DocNode& n, int* prefix) {
  std::string text = n.as_string();
  auto slash = text.find('/');
  std::string addr = text.substr(0, slash);
  if (!valid_ipv4(addr))
    n.fail(fmt::format("expected an IPv4 address such as 192.168.0.1, got \"{}\"", text));
  if (slash != std::string::npos) {
    std::string p = text.substr(slash + 1);
    char* end = nullptr;
    long v = std::strtol(p.c_str(), &end, 10);
    if (p.empty() || *end != '\0' || v < 0 || v > 32)
      n.fail(fmt::format("expected a prefix length 0-32 after '/', got \"{}\"", text));
    if (prefix) *prefix = static_cast<int>(v);
  }
  return addr;
}

int read_prefix(const DocNode& n) {
  int64_t v = n.as_int();
  if (v < 0 || v > 32) n.fail(fmt::format("expected a prefix length 0-32, got {}", n.text()));
  return static_cast<int>(v);
}

}  // namespace meshplan
