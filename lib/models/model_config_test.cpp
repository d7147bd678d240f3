#include "lib/models/model_config.hpp"

#include <gtest/gtest.h>

#include <map>

#include "lib/core/error.hpp"

namespace meshplan::model_config_test {
namespace {

ArchConfig read(const std::string& json) {
  return read_arch_config(parse_json_document(json, "config.json"));
}

std::string error_of(const std::string& json) {
  try {
    read(json);
  } catch (const Error& e) {
    EXPECT_EQ(exit_code(e.kind()), 2);
    return e.what();
  }
  ADD_FAILURE() << "no error for " << json;
  return "";
}

constexpr const char* kLlama =
    R"({"model_type": "llama", "hidden_size": 256, "intermediate_size": 512, "num_attention_heads": 8,
        "num_hidden_layers": 2, "num_key_value_heads": 2, "vocab_size": 1000})";

TEST(model_config_test, grouped_query_attention) {
  ArchConfig c = read(kLlama);
  EXPECT_EQ(c.head_dim, 32);  // hidden / heads when head_dim is absent
  EXPECT_EQ(kv_bytes_per_token(c, 0), 2u * 2 * 32 * 2);
  EXPECT_FALSE(c.is_moe());
  EXPECT_EQ(c.sliding_window, (std::vector<int>{0, 0}));
  EXPECT_FALSE(c.quantization);
}

TEST(model_config_test, deepseek_latent_attention_and_dense_layers) {
  ArchConfig c = read(R"({"model_type": "deepseek_v3", "hidden_size": 256, "intermediate_size": 512,
    "moe_intermediate_size": 64, "num_attention_heads": 4, "num_hidden_layers": 4, "vocab_size": 1000,
    "n_routed_experts": 16, "n_shared_experts": 1, "num_experts_per_tok": 4, "first_k_dense_replace": 2,
    "q_lora_rank": 96, "kv_lora_rank": 64, "qk_nope_head_dim": 32, "qk_rope_head_dim": 16, "v_head_dim": 32,
    "num_nextn_predict_layers": 1})");
  EXPECT_TRUE(c.mla);
  EXPECT_EQ(c.moe_layers, (std::vector<bool>{false, false, true, true}));
  EXPECT_EQ(kv_bytes_per_token(c, 3), (64u + 16u) * 2);  // latent + rope key, bf16
  EXPECT_EQ(c.extra_layers, 1);
  EXPECT_EQ(c.router_quant, RouterQuant::kFloat);
}

TEST(model_config_test, gpt_oss_windows_sinks_and_biases) {
  ArchConfig c = read(
      R"({"model_type": "gpt_oss", "hidden_size": 128, "intermediate_size": 128, "head_dim": 32,
    "num_attention_heads": 4, "num_key_value_heads": 2, "num_hidden_layers": 3, "vocab_size": 500,
    "num_local_experts": 8, "num_experts_per_tok": 2, "sliding_window": 128,
    "layer_types": ["full_attention", "sliding_attention", "full_attention"]})");
  EXPECT_EQ(c.sliding_window, (std::vector<int>{0, 128, 0}));
  EXPECT_TRUE(c.attention_sinks && c.attention_bias && c.o_bias && c.router_bias && c.expert_bias);
  EXPECT_EQ(c.num_experts, 8);
  EXPECT_EQ(c.moe_intermediate_size, 128);
  std::string e =
      error_of(R"({"model_type": "gpt_oss", "hidden_size": 128, "intermediate_size": 128,
    "num_attention_heads": 4, "num_hidden_layers": 2, "vocab_size": 500, "num_local_experts": 8,
    "num_experts_per_tok": 2, "sliding_window": 128, "layer_types": ["full_attention", "local"]})");
  EXPECT_NE(
      e.find("config.json (/layer_types/1): expected \"sliding_attention\" or \"full_attention\""),
      std::string::npos)
      << e;
}

TEST(model_config_test, dbrx_names_its_fields_differently) {
  ArchConfig c = read(
      R"({"model_type": "dbrx", "d_model": 512, "n_heads": 8, "n_layers": 2, "vocab_size": 1000,
    "attn_config": {"kv_n_heads": 2}, "ffn_config": {"ffn_hidden_size": 256, "moe_num_experts": 4, "moe_top_k": 2}})");
  EXPECT_EQ(c.hidden_size, 512);
  EXPECT_EQ(c.head_dim, 64);
  EXPECT_EQ(c.num_kv_heads, 2);
  EXPECT_TRUE(c.fused_qkv);
  EXPECT_EQ(c.moe_intermediate_size, 256);
  EXPECT_NE(
      error_of(
          R"({"model_type": "dbrx", "d_model": 512, "n_heads": 8, "n_layers": 2, "vocab_size": 1000,
    "attn_config": {"kv_n_heads": 3}, "ffn_config": {"ffn_hidden_size": 256, "moe_num_experts": 4, "moe_top_k": 2}})")
          .find("(/attn_config/kv_n_heads): expected a divisor of n_heads (8), got 3"),
      std::string::npos);
}

TEST(model_config_test, mixtral_and_qwen_windows) {
  ArchConfig m = read(R"({"model_type": "mixtral", "hidden_size": 256, "intermediate_size": 512,
    "num_attention_heads": 8, "num_hidden_layers": 2, "num_key_value_heads": 2, "vocab_size": 1000,
    "num_local_experts": 8, "num_experts_per_tok": 2, "sliding_window": 4096})");
  EXPECT_EQ(m.moe_intermediate_size, 512);
  EXPECT_EQ(m.sliding_window, (std::vector<int>{4096, 4096}));
  // Qwen configs carry a sliding_window that is off unless use_sliding_window is set.
  ArchConfig q = read(R"({"model_type": "qwen3", "hidden_size": 256, "intermediate_size": 512,
    "num_attention_heads": 8, "num_hidden_layers": 2, "vocab_size": 1000, "sliding_window": 4096,
    "use_sliding_window": false})");
  EXPECT_EQ(q.sliding_window, (std::vector<int>{0, 0}));
  EXPECT_TRUE(q.qk_norm);
}

TEST(model_config_test, mlx_quantization_block) {
  ArchConfig c = read(R"({"model_type": "llama", "hidden_size": 256, "intermediate_size": 512,
    "num_attention_heads": 8, "num_hidden_layers": 2, "vocab_size": 1000,
    "quantization": {"group_size": 32, "bits": 4, "model.layers.0.mlp.down_proj": {"group_size": 64, "bits": 8},
                     "lm_head": false}})");
  ASSERT_TRUE(c.quantization);
  EXPECT_EQ(c.quantization->base, QuantSpec::affine(4, 32));
  EXPECT_EQ(c.quantization->name, "4bit-g32-mixed");
  ASSERT_EQ(c.quantization->overrides.size(), 2u);
  std::map<std::string, QuantSpec> overrides(c.quantization->overrides.begin(),
                                             c.quantization->overrides.end());
  EXPECT_EQ(overrides.at("model.layers.0.mlp.down_proj.weight"), QuantSpec::affine(8, 64));
  EXPECT_EQ(overrides.at("lm_head.weight"), QuantSpec::bf16());
  ArchConfig fp8 = read(R"({"model_type": "llama", "hidden_size": 256, "intermediate_size": 512,
    "num_attention_heads": 8, "num_hidden_layers": 2, "vocab_size": 1000,
    "quantization_config": {"quant_method": "fp8", "weight_block_size": [128, 128]}})");
  EXPECT_EQ(fp8.quantization->base, QuantSpec::fp8_block());
  std::string e = error_of(R"({"model_type": "llama", "hidden_size": 256, "intermediate_size": 512,
    "num_attention_heads": 8, "num_hidden_layers": 2, "vocab_size": 1000, "quantization": {"bits": 7}})");
  EXPECT_NE(e.find("config.json (/quantization): expected bits of 2, 3, 4, 5, 6 or 8, got 7"),
            std::string::npos)
      << e;
}

TEST(model_config_test, bad_configs_name_the_file_and_field) {
  EXPECT_NE(error_of(R"({"model_type": "mamba", "hidden_size": 1})")
                .find("config.json (/model_type): unknown architecture \"mamba\""),
            std::string::npos);
  EXPECT_NE(error_of(R"({"model_type": "llama", "hidden_size": 256})")
                .find("config.json (/): missing required key \"num_hidden_layers\""),
            std::string::npos);
  EXPECT_NE(error_of(R"({"model_type": "llama", "hidden_size": 0, "num_hidden_layers": 2})")
                .find("(/hidden_size): expected hidden_size between 1 and"),
            std::string::npos);
  EXPECT_NE(
      error_of(R"({"model_type": "llama", "hidden_size": 256, "num_hidden_layers": 99999999999})")
          .find("(/num_hidden_layers)"),
      std::string::npos);
  EXPECT_NE(error_of(R"({"model_type": "llama", "hidden_size": "big"})")
                .find("(/hidden_size): expected an integer, got the string \"big\""),
            std::string::npos);
  EXPECT_NE(
      error_of(R"({"model_type": "llama", "hidden_size": 256, "intermediate_size": 512,
    "num_attention_heads": 8, "num_hidden_layers": 2, "num_key_value_heads": 3, "vocab_size": 1000})")
          .find("(/num_key_value_heads): expected a divisor of num_attention_heads (8), got 3"),
      std::string::npos);
  EXPECT_NE(error_of(R"({"model_type": "qwen3_moe", "hidden_size": 256, "intermediate_size": 512,
    "num_attention_heads": 8, "num_hidden_layers": 2, "vocab_size": 1000, "num_experts": 4,
    "num_experts_per_tok": 8, "moe_intermediate_size": 64})")
                .find("num_experts_per_tok (8) exceeds the number of experts (4)"),
            std::string::npos);
  EXPECT_NE(error_of("{\"model_type\": \"llama\",").find("config.json:1:"), std::string::npos);
  EXPECT_NE(error_of("[1, 2]").find("expected an object"), std::string::npos);
}

TEST(model_config_test, architecture_tensors_follow_mlx_names) {
  ArchConfig c = read(kLlama);
  auto tensors = architecture_tensors(c);
  ASSERT_FALSE(tensors.empty());
  EXPECT_EQ(tensors.front().name, "model.embed_tokens.weight");
  EXPECT_EQ(tensors.back().name, "lm_head.weight");
  uint64_t layer0 = 0;
  for (const auto& t : tensors) {
    if (t.layer == 0) layer0 += t.params;
  }
  // q, k, v, o + gate, up, down + two norms.
  EXPECT_EQ(layer0, 256u * 256 * 2 + 2u * 64 * 256 + 3u * 512 * 256 + 2 * 256);
}

}  // namespace
}  // namespace meshplan::model_config_test
