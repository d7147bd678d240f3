#include "lib/models/quantization.hpp"

#include <gtest/gtest.h>

namespace meshplan::quantization_test {
namespace {

TensorInfo tensor(std::string name, TensorRole role, std::vector<int64_t> shape) {
  TensorInfo t;
  t.name = std::move(name);
  t.role = role;
  t.shape = std::move(shape);
  t.params = 1;
  for (auto d : t.shape)
    t.params *= static_cast<uint64_t>(d);
  return t;
}

TEST(quantization_test, affine_adds_a_bf16_scale_and_bias_per_group) {
  // 4096 x 4096 at 4 bits, group 64: 4 + 32/64 = 4.5 bits per weight.
  const uint64_t p = 4096ull * 4096;
  EXPECT_EQ(quantized_bytes(p, {4096, 4096}, QuantSpec::affine(4, 64)), p * 9 / 16);
  EXPECT_EQ(quantized_bytes(p, {4096, 4096}, QuantSpec::affine(8, 64)), p * 17 / 16);
  EXPECT_EQ(quantized_bytes(p, {4096, 4096}, QuantSpec::affine(4, 32)), p * 5 / 8);
  EXPECT_EQ(quantized_bytes(p, {4096, 4096}, QuantSpec::affine(3, 64)), p * 3 / 8 + p / 16);
  EXPECT_EQ(quantized_bytes(p, {4096, 4096}, QuantSpec::affine(6, 64)), p * 6 / 8 + p / 16);
  // A last dimension that does not divide into groups stays in bf16, as MLX leaves it.
  EXPECT_EQ(quantized_bytes(100 * 96, {100, 96}, QuantSpec::affine(4, 64)), 100u * 96 * 2);
}

TEST(quantization_test, mxfp4_and_block_fp8) {
  const uint64_t p = 2880ull * 2880;
  EXPECT_EQ(quantized_bytes(p, {2880, 2880}, QuantSpec::mxfp4()), p / 2 + p / 32);
  EXPECT_EQ(quantized_bytes(50, {50}, QuantSpec::mxfp4()), 100u);
  // Block FP8: one byte per value and one fp32 scale per started 128 x 128 block.
  EXPECT_EQ(quantized_bytes(256ull * 256, {256, 256}, QuantSpec::fp8_block()), 65536u + 4 * 4);
  EXPECT_EQ(quantized_bytes(200ull * 300, {200, 300}, QuantSpec::fp8_block()), 60000u + 2 * 3 * 4);
  // Stacked experts: blocks per matrix.
  EXPECT_EQ(quantized_bytes(8ull * 128 * 128, {8, 128, 128}, QuantSpec::fp8_block()),
            8u * 128 * 128 + 8 * 4);
  EXPECT_EQ(quantized_bytes(1000, {10, 100}, QuantSpec::fp32()), 4000u);
}

TEST(quantization_test, what_stays_unquantized) {
  QuantScheme s = *quant_scheme("4bit");
  EXPECT_EQ(s.spec_for(tensor("model.layers.0.input_layernorm.weight", TensorRole::kNorm, {4096})),
            QuantSpec::bf16());
  EXPECT_EQ(
      s.spec_for(tensor("model.layers.0.self_attn.q_proj.bias", TensorRole::kAttention, {4096})),
      QuantSpec::bf16());
  EXPECT_EQ(s.spec_for(tensor("model.layers.0.mlp.experts.gate_proj.bias", TensorRole::kExpert,
                              {32, 2880})),
            QuantSpec::bf16());
  EXPECT_EQ(s.spec_for(tensor("model.layers.3.mlp.gate.e_score_correction_bias",
                              TensorRole::kRouter, {256})),
            QuantSpec::fp32());
  EXPECT_EQ(s.spec_for(tensor("model.layers.0.self_attn.q_proj.weight", TensorRole::kAttention,
                              {4096, 4096})),
            QuantSpec::affine(4, 64));
}

TEST(quantization_test, routers_follow_the_family_policy) {
  TensorInfo router = tensor("model.layers.0.mlp.gate.weight", TensorRole::kRouter, {128, 2048});
  QuantScheme s = *quant_scheme("4bit");
  EXPECT_EQ(s.spec_for(router), QuantSpec::affine(4, 64));
  s.router = RouterQuant::k8bit;
  EXPECT_EQ(s.spec_for(router), QuantSpec::affine(8, 64));
  s.router = RouterQuant::kFloat;
  EXPECT_EQ(s.spec_for(router), QuantSpec::bf16());
}

TEST(quantization_test, mixed_schemes) {
  TensorInfo expert =
      tensor("model.layers.0.mlp.experts.down_proj.weight", TensorRole::kExpert, {32, 2880, 2880});
  TensorInfo attn =
      tensor("model.layers.0.self_attn.o_proj.weight", TensorRole::kAttention, {2880, 4096});
  TensorInfo embed = tensor("model.embed_tokens.weight", TensorRole::kEmbedding, {201088, 2880});
  QuantScheme q8 = *quant_scheme("mxfp4-q8");
  EXPECT_EQ(q8.spec_for(expert), QuantSpec::mxfp4());
  EXPECT_EQ(q8.spec_for(attn), QuantSpec::affine(8, 64));
  EXPECT_EQ(q8.spec_for(embed), QuantSpec::affine(8, 64));
  QuantScheme native = *quant_scheme("mxfp4-bf16");
  EXPECT_EQ(native.spec_for(expert), QuantSpec::mxfp4());
  EXPECT_EQ(native.spec_for(attn), QuantSpec::bf16());
  // Kimi K2 Thinking as released: only the routed experts are 4-bit (groups of 32).
  QuantScheme kimi = *quant_scheme("int4-bf16");
  TensorInfo shared = tensor("model.layers.1.mlp.shared_experts.up_proj.weight",
                             TensorRole::kSharedExpert, {2048, 7168});
  EXPECT_EQ(kimi.spec_for(expert), QuantSpec::affine(4, 32));
  EXPECT_EQ(kimi.spec_for(shared), QuantSpec::bf16());
  EXPECT_EQ(kimi.spec_for(attn), QuantSpec::bf16());
  EXPECT_EQ(kimi.spec_for(embed), QuantSpec::bf16());
  QuantScheme fp8 = *quant_scheme("fp8");
  EXPECT_EQ(fp8.spec_for(attn), QuantSpec::fp8_block());
  EXPECT_EQ(fp8.spec_for(embed), QuantSpec::bf16());
  QuantScheme mixed = *quant_scheme("4bit");
  mixed.overrides.emplace_back("layers.0.self_attn.o_proj.weight", QuantSpec::affine(6, 32));
  EXPECT_EQ(mixed.spec_for(attn), QuantSpec::affine(6, 32));

  apply_quantization(expert, q8);
  EXPECT_EQ(expert.dtype, "mxfp4");
  EXPECT_EQ(expert.bytes, 32ull * 2880 * 2880 * 17 / 32);
}

TEST(quantization_test, scheme_names) {
  EXPECT_EQ(quant_scheme("Q4")->name, "4bit");
  EXPECT_EQ(quant_scheme("int8")->name, "8bit");
  EXPECT_EQ(quant_scheme("4bit-g32")->base, QuantSpec::affine(4, 32));
  EXPECT_EQ(quant_scheme("4bit-gs128")->name, "4bit-g128");
  EXPECT_EQ(quant_scheme("f16")->name, "fp16");
  EXPECT_FALSE(quant_scheme("7bit"));
  EXPECT_FALSE(quant_scheme("4bit-g48"));
  EXPECT_FALSE(quant_scheme("mxfp4-q7"));
  EXPECT_FALSE(quant_scheme("nf4"));
}

}  // namespace
}  // namespace meshplan::quantization_test
