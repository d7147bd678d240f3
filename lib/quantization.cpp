#include "lib/quantization.hpp"

#include <fmt/format.h>

#include "lib/units.hpp"

namespace meshplan {

std::string QuantSpec::label() const {
  switch (mode) {
    case Mode::kFloat:
      return bits == 32 ? "fp32" : bits == 8 ? "fp8" : "bf16";
    case Mode::kAffine:
      return fmt::format("q{}g{}", bits, group_size);
    case Mode::kMxfp4:
      return "mxfp4";
  }
  return "?";
}

std::optional<QuantScheme> quant_scheme(std::string_view name) {
  std::string n = to_lower(name);
  QuantScheme s;
  s.name = n;
  if (n == "bf16" || n == "fp16" || n == "f16") {
    s.name = n == "f16" ? "fp16" : n;
    s.base = {QuantSpec::Mode::kFloat, 16, 0};
    return s;
  }
  if (n == "fp32" || n == "f32") {
    s.name = "fp32";
    s.base = {QuantSpec::Mode::kFloat, 32, 0};
    return s;
  }
  if (n == "fp8") {
    s.base = {QuantSpec::Mode::kFloat, 8, 0};
    return s;
  }
  if (n == "mxfp4") {
    s.base = {QuantSpec::Mode::kMxfp4, 4, 32};
    return s;
  }
  for (int bits : {2, 3, 4, 5, 6, 8}) {
    if (n == fmt::format("{}bit", bits) || n == fmt::format("q{}", bits) || n == fmt::format("int{}", bits)) {
      s.name = fmt::format("{}bit", bits);
      s.base = {QuantSpec::Mode::kAffine, bits, 64};
      return s;
    }
  }
  return std::nullopt;
}

std::string quant_names() { return "bf16, fp16, fp8, 8bit, 6bit, 5bit, 4bit, 3bit, 2bit, mxfp4"; }

QuantSpec QuantScheme::spec_for(const TensorInfo& t) const {
  for (const auto& [suffix, spec] : overrides) {
    if (t.name.size() >= suffix.size() && t.name.compare(t.name.size() - suffix.size(), suffix.size(), suffix) == 0)
      return spec;
  }
  if (t.role == TensorRole::kNorm || t.shape.size() < 2) return {QuantSpec::Mode::kFloat, 16, 0};
  if (t.role == TensorRole::kRouter && router_8bit && base.mode == QuantSpec::Mode::kAffine && base.bits < 8)
    return {QuantSpec::Mode::kAffine, 8, 64};
  return base;
}

uint64_t quantized_bytes(uint64_t params, int64_t last_dim, const QuantSpec& spec) {
  switch (spec.mode) {
    case QuantSpec::Mode::kFloat:
      return params * static_cast<uint64_t>(spec.bits) / 8;
    case QuantSpec::Mode::kAffine:
      if (last_dim % spec.group_size != 0) return params * 2;  // MLX leaves it in bf16
      // values + one bf16 scale and one bf16 bias per group
      return params * static_cast<uint64_t>(spec.bits) / 8 + params / static_cast<uint64_t>(spec.group_size) * 4;
    case QuantSpec::Mode::kMxfp4:
      if (last_dim % 32 != 0) return params * 2;
      return params / 2 + params / 32;
  }
  return params * 2;
}

void apply_quantization(TensorInfo& t, const QuantScheme& scheme) {
  QuantSpec spec = scheme.spec_for(t);
  int64_t last = t.shape.empty() ? 1 : t.shape.back();
  t.bytes = quantized_bytes(t.params, last, spec);
  bool stays_float = spec.mode != QuantSpec::Mode::kFloat && t.bytes == t.params * 2;
  t.dtype = stays_float ? "bf16" : spec.label();
}

}  // namespace meshplan
