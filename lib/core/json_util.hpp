// Small helpers for writing stable, diff-friendly JSON.
#pragma once

#include <cmath>
#include <cstdint>
#include <nlohmann/json.hpp>

namespace meshplan {

using ojson = nlohmann::ordered_json;

// Integral values are written without a fraction ("80", not "80.0"); others with up to 6
// significant decimals after rounding, so that output is stable across platforms.
inline ojson json_number(double v) {
  if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 9.0e15)
    return static_cast<int64_t>(v);
  if (!std::isfinite(v)) return nullptr;
  int exponent = static_cast<int>(std::floor(std::log10(std::fabs(v))));
  if (exponent >= 6) {  // large: round to a multiple of a power of ten, exactly representable
    double unit = std::pow(10.0, exponent - 6);
    double r = std::round(v / unit) * unit;
    if (std::fabs(r) < 9.0e15) return static_cast<int64_t>(r);
    return r;
  }
  double scale = std::pow(10.0, 6 - exponent);
  return std::round(v * scale) / scale;
}

// Milliseconds rounded to microseconds, for plan files.
inline ojson json_ms(double seconds) {
  if (!std::isfinite(seconds)) return nullptr;
  return std::round(seconds * 1e6) / 1e3;
}

}  // namespace meshplan
