#include "lib/models/quantization.hpp"

#include <fmt/format.h>

#include <charconv>

#include "lib/core/units.hpp"

namespace meshplan {
namespace {

// "4bit", "q4", "int4" -> 4; "4bit-g32" / "4bit-gs32" -> 4 with group 32.
std::optional<QuantSpec> affine_spec(std::string_view n) {
  int group = 64;
  auto dash = n.find("-g");
  if (dash != std::string_view::npos) {
    std::string_view g = n.substr(dash + 2);
    if (!g.empty() && g[0] == 's') g.remove_prefix(1);
    auto [p, ec] = std::from_chars(g.data(), g.data() + g.size(), group);
    if (ec != std::errc() || p != g.data() + g.size() || group < 16 || group > 1024 ||
        (group & (group - 1)) != 0)
      return std::nullopt;
    n = n.substr(0, dash);
  }
  for (int bits : {2, 3, 4, 5, 6, 8}) {
    if (n == fmt::format("{}bit", bits) || n == fmt::format("q{}", bits) ||
        n == fmt::format("int{}", bits))
      return QuantSpec::affine(bits, group);
  }
  return std::nullopt;
}

}  // namespace

std::string QuantSpec::label() const {
  switch (mode) {
    case Mode::kFloat:
      return bits == 32 ? "fp32" : "bf16";
    case Mode::kAffine:
      return fmt::format("q{}g{}", bits, group_size);
    case Mode::kMxfp4:
      return "mxfp4";
    case Mode::kFp8Block:
      return "fp8";
  }
  return "?";
}

std::optional<QuantScheme> quant_scheme(std::string_view raw) {
  std::string n = to_lower(trim(raw));
  QuantScheme s;
  s.name = n;
  if (n == "bf16" || n == "fp16" || n == "f16" || n == "float16" || n == "bfloat16") {
    s.name = n == "bf16" || n == "bfloat16" ? "bf16" : "fp16";
    s.base = QuantSpec::bf16();
    return s;
  }
  if (n == "fp32" || n == "f32" || n == "float32") {
    s.name = "fp32";
    s.base = QuantSpec::fp32();
    return s;
  }
  if (n == "fp8") {
    // Block FP8 for the linear weights of the blocks; embedding, head and routers in bf16.
    s.base = QuantSpec::fp8_block();
    s.embedding = QuantSpec::bf16();
    s.router = RouterQuant::kFloat;
    return s;
  }
  if (n == "mxfp4") {
    s.base = QuantSpec::mxfp4();
    return s;
  }
  if (n == "int4-bf16") {
    // Kimi K2 Thinking as released (quantization-aware training of the routed experts only), as
    // MLX stores it: 4-bit experts in groups of 32 with a scale and a bias each, the rest bf16.
    s.experts = QuantSpec::affine(4, 32);
    s.base = QuantSpec::bf16();
    s.router = RouterQuant::kFloat;
    return s;
  }
  if (n.rfind("mxfp4-", 0) == 0) {
    std::string rest = n.substr(6);
    s.experts = QuantSpec::mxfp4();
    if (rest == "bf16") {
      s.base = QuantSpec::bf16();
      s.router = RouterQuant::kFloat;
      return s;
    }
    if (rest.size() == 2 && rest[0] == 'q') {
      auto spec = affine_spec(rest);
      if (!spec) return std::nullopt;
      s.base = *spec;
      return s;
    }
    return std::nullopt;
  }
  auto spec = affine_spec(n);
  if (!spec) return std::nullopt;
  s.base = *spec;
  s.name = spec->group_size == 64 ? fmt::format("{}bit", spec->bits)
                                  : fmt::format("{}bit-g{}", spec->bits, spec->group_size);
  return s;
}

std::string quant_names() {
  return "bf16, fp16, fp32, 8bit, 6bit, 5bit, 4bit, 3bit, 2bit (group 64; 4bit-g32 for another "
         "group), mxfp4, "
         "mxfp4-q8, mxfp4-q4, mxfp4-bf16, int4-bf16, fp8, native";
}

QuantSpec QuantScheme::spec_for(const TensorInfo& t) const {
  for (const auto& [suffix, spec] : overrides) {
    if (std::string_view(t.name).ends_with(suffix)) return spec;
  }
  // DeepSeek's routing bias is kept in fp32 by every converter.
  if (std::string_view(t.name).ends_with("e_score_correction_bias")) return QuantSpec::fp32();
  // Norms, biases (gpt-oss stacks expert biases as [experts, n]) and vectors stay in bf16.
  if (t.role == TensorRole::kNorm || t.shape.size() < 2 ||
      std::string_view(t.name).ends_with(".bias") || std::string_view(t.name).ends_with("_bias"))
    return QuantSpec::bf16();
  if (t.role == TensorRole::kExpert && experts) return *experts;
  if ((t.role == TensorRole::kEmbedding || t.role == TensorRole::kHead) && embedding)
    return *embedding;
  if (t.role == TensorRole::kRouter && base.mode != QuantSpec::Mode::kFloat) {
    const RouterQuant policy = router.value_or(RouterQuant::kBase);
    if (policy == RouterQuant::kFloat || base.mode == QuantSpec::Mode::kFp8Block)
      return QuantSpec::bf16();
    if (policy == RouterQuant::k8bit) return QuantSpec::affine(8, 64);
  }
  return base;
}

uint64_t quantized_bytes(uint64_t params, const std::vector<int64_t>& shape,
                         const QuantSpec& spec) {
  const int64_t last = shape.empty() ? 1 : shape.back();
  switch (spec.mode) {
    case QuantSpec::Mode::kFloat:
      return params * static_cast<uint64_t>(spec.bits) / 8;
    case QuantSpec::Mode::kAffine:
      if (last % spec.group_size != 0) return params * 2;  // MLX leaves it in bf16
      // packed values + one bf16 scale and one bf16 bias per group
      return params * static_cast<uint64_t>(spec.bits) / 8 +
             params / static_cast<uint64_t>(spec.group_size) * 4;
    case QuantSpec::Mode::kMxfp4:
      if (last % 32 != 0) return params * 2;
      return params / 2 + params / 32;  // two values per byte + one uint8 exponent per 32
    case QuantSpec::Mode::kFp8Block: {
      if (shape.size() < 2) return params * 2;
      const uint64_t b = static_cast<uint64_t>(spec.group_size);
      const uint64_t rows = static_cast<uint64_t>(shape[shape.size() - 2]),
                     cols = static_cast<uint64_t>(last);
      const uint64_t matrices = rows * cols == 0 ? 0 : params / (rows * cols);
      return params +
             matrices * ((rows + b - 1) / b) * ((cols + b - 1) / b) * 4;  // fp32 scale per block
    }
  }
  return params * 2;
}

void apply_quantization(TensorInfo& t, const QuantScheme& scheme) {
  QuantSpec spec = scheme.spec_for(t);
  t.bytes = quantized_bytes(t.params, t.shape, spec);
  bool stays_float = spec.mode != QuantSpec::Mode::kFloat &&
                     spec.mode != QuantSpec::Mode::kFp8Block && t.bytes == t.params * 2;
  t.dtype = stays_float ? "bf16" : spec.label();
}

}  // namespace meshplan
