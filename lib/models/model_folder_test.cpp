#include "lib/models/model_folder.hpp"

#include <gtest/gtest.h>

#include <filesystem>

#include "lib/core/error.hpp"
#include "lib/models/model_catalog.hpp"
#include "lib/models/model_loader.hpp"
#include "tests/safetensors_writer.hpp"
#include "tests/test_support.hpp"

namespace meshplan::model_folder_test {
namespace {

using testing::linear;
using testing::linear_bytes;
using testing::safetensors_file;
using testing::StTensor;
using testing::write_bytes;

using Tensors = std::vector<StTensor>;

void append(Tensors& to, const Tensors& from) {
  to.insert(to.end(), from.begin(), from.end());
}

std::string folder(const std::string& config,
                   const std::vector<std::pair<std::string, Tensors>>& files) {
  std::string dir = testing::temp_dir() + "/model";
  std::filesystem::create_directories(dir);
  write_bytes(dir + "/config.json", config);
  for (const auto& [name, tensors] : files)
    write_bytes(dir + "/" + name, safetensors_file(tensors));
  return dir;
}

std::string error_of(const std::string& path, std::string_view quant = "") {
  RealFileSystem fs;
  try {
    load_model_folder(path, quant, fs);
  } catch (const Error& e) {
    EXPECT_EQ(exit_code(e.kind()), 2);
    return e.what();
  }
  ADD_FAILURE() << "no error for " << path;
  return "";
}

// A small llama: hidden 128, 4 heads of 32, 2 KV heads, MLP 256, vocabulary 512, 2 layers.
constexpr const char* kLlama =
    R"({"model_type": "llama", "hidden_size": 128, "intermediate_size": 256,
  "num_attention_heads": 4, "num_key_value_heads": 2, "num_hidden_layers": 2, "vocab_size": 512, "tie_word_embeddings": %s %s})";

std::string llama_config(bool tied, const std::string& quant_block = "") {
  char buf[1024];
  std::snprintf(buf, sizeof buf, kLlama, tied ? "true" : "false", quant_block.c_str());
  return buf;
}

Tensors llama_layer(int l, int bits, int down_bits = 0, int down_group = 64) {
  std::string p = "model.layers." + std::to_string(l) + ".";
  Tensors t = {{p + "input_layernorm.weight", "BF16", {128}},
               {p + "post_attention_layernorm.weight", "BF16", {128}}};
  append(t, linear(p + "self_attn.q_proj", 128, 128, bits));
  append(t, linear(p + "self_attn.k_proj", 64, 128, bits));
  append(t, linear(p + "self_attn.v_proj", 64, 128, bits));
  append(t, linear(p + "self_attn.o_proj", 128, 128, bits));
  append(t, linear(p + "mlp.gate_proj", 256, 128, bits));
  append(t, linear(p + "mlp.up_proj", 256, 128, bits));
  append(t, linear(p + "mlp.down_proj", 128, 256, down_bits ? down_bits : bits,
                   down_bits ? down_group : 64));
  return t;
}

uint64_t llama_layer_bytes(int bits, int down_bits = 0, int down_group = 64) {
  return 2 * 128 * 2 + linear_bytes(128, 128, bits) * 2 + linear_bytes(64, 128, bits) * 2 +
         linear_bytes(256, 128, bits) * 2 +
         linear_bytes(128, 256, down_bits ? down_bits : bits, down_bits ? down_group : 64);
}

constexpr double kLlamaLayerParams = 128.0 * 128 * 2 + 64.0 * 128 * 2 + 256.0 * 128 * 3 + 2 * 128;

TEST(model_folder_test, dense_bf16_untied_over_two_files_with_an_index) {
  Tensors a = {{"model.embed_tokens.weight", "BF16", {512, 128}}};
  append(a, llama_layer(0, 16));
  Tensors b = llama_layer(1, 16);
  b.push_back({"model.norm.weight", "BF16", {128}});
  b.push_back({"lm_head.weight", "BF16", {512, 128}});
  std::string dir = folder(llama_config(false), {{"model-00001-of-00002.safetensors", a},
                                                 {"model-00002-of-00002.safetensors", b}});
  nlohmann::json index;
  for (const auto& t : a)
    index["weight_map"][t.name] = "model-00001-of-00002.safetensors";
  for (const auto& t : b)
    index["weight_map"][t.name] = "model-00002-of-00002.safetensors";
  write_bytes(dir + "/model.safetensors.index.json", index.dump());

  RealFileSystem fs;
  ModelDesc m = load_model_folder(dir, "", fs);
  EXPECT_EQ(m.name, "model");
  EXPECT_EQ(m.quantization, "bf16");
  ASSERT_EQ(m.num_layers(), 2);
  for (const auto& l : m.layers) {
    EXPECT_EQ(l.weight_bytes, llama_layer_bytes(16));
    EXPECT_EQ(l.read_bytes, l.weight_bytes);
    EXPECT_DOUBLE_EQ(l.flops, 2 * kLlamaLayerParams);
    EXPECT_EQ(l.kv_bytes_per_token, 2u * 2 * 32 * 2);
    EXPECT_FALSE(l.moe);
  }
  EXPECT_EQ(m.embedding_bytes, 512u * 128 * 2);
  EXPECT_EQ(m.head_bytes, 512u * 128 * 2);
  EXPECT_EQ(m.other_bytes, 256u);
  EXPECT_FALSE(m.tied_embeddings);
  uint64_t stored = 0;
  for (const auto* ts : {&a, &b}) {
    for (const auto& t : *ts)
      stored += testing::st_bytes(t);
  }
  EXPECT_EQ(m.total_bytes(), stored);
}

TEST(model_folder_test, mlx_4bit_tied_with_a_mixed_layer) {
  // Layer 0's down projection is stored at 8 bits with groups of 32, as the config says.
  std::string quant = R"(, "quantization": {"group_size": 64, "bits": 4,
      "model.layers.0.mlp.down_proj": {"group_size": 32, "bits": 8}})";
  Tensors t = linear("model.embed_tokens", 512, 128, 4);
  append(t, llama_layer(0, 4, 8, 32));
  append(t, llama_layer(1, 4));
  t.push_back({"model.norm.weight", "BF16", {128}});
  std::string dir = folder(llama_config(true, quant), {{"model.safetensors", t}});

  RealFileSystem fs;
  ModelDesc m = load_model_folder(dir, "", fs);
  EXPECT_EQ(m.quantization, "4bit-mixed");
  EXPECT_TRUE(m.tied_embeddings);
  EXPECT_EQ(m.head_bytes, 0u);
  EXPECT_EQ(m.embedding_bytes, linear_bytes(512, 128, 4));
  EXPECT_EQ(m.head_read_bytes(), m.embedding_bytes);
  EXPECT_EQ(m.layers[0].weight_bytes, llama_layer_bytes(4, 8, 32));
  EXPECT_EQ(m.layers[1].weight_bytes, llama_layer_bytes(4));
  EXPECT_NE(m.layers[0].weight_bytes, m.layers[1].weight_bytes);
  // Logical shapes come back from the packed values: FLOPs do not depend on the storage.
  EXPECT_DOUBLE_EQ(m.layers[0].flops, 2 * kLlamaLayerParams);
  EXPECT_DOUBLE_EQ(m.layers[1].flops, 2 * kLlamaLayerParams);
  for (const auto& x : m.tensors) {
    if (x.name == "model.layers.0.mlp.down_proj.weight") {
      EXPECT_EQ(x.dtype, "q8g32");
      EXPECT_EQ(x.shape, (std::vector<int64_t>{128, 256}));
    }
    if (x.name == "model.layers.1.mlp.down_proj.weight") {
      EXPECT_EQ(x.dtype, "q4g64");
    }
  }
}

// qwen3_moe: 4 experts of 64, 2 per token.
constexpr const char* kQwenMoe =
    R"({"model_type": "qwen3_moe", "hidden_size": 128, "intermediate_size": 256,
  "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 32, "num_hidden_layers": 1, "vocab_size": 512,
  "num_experts": 4, "num_experts_per_tok": 2, "moe_intermediate_size": 64, "tie_word_embeddings": true})";

Tensors qwen_moe(bool stacked) {
  std::string p = "model.layers.0.";
  Tensors t = {{"model.embed_tokens.weight", "BF16", {512, 128}},
               {"model.norm.weight", "BF16", {128}},
               {p + "input_layernorm.weight", "BF16", {128}},
               {p + "post_attention_layernorm.weight", "BF16", {128}},
               {p + "self_attn.q_norm.weight", "BF16", {32}},
               {p + "self_attn.k_norm.weight", "BF16", {32}},
               {p + "mlp.gate.weight", "BF16", {4, 128}}};
  append(t, linear(p + "self_attn.q_proj", 128, 128));
  append(t, linear(p + "self_attn.k_proj", 64, 128));
  append(t, linear(p + "self_attn.v_proj", 64, 128));
  append(t, linear(p + "self_attn.o_proj", 128, 128));
  if (stacked) {
    t.push_back({p + "mlp.switch_mlp.gate_proj.weight", "BF16", {4, 64, 128}});
    t.push_back({p + "mlp.switch_mlp.up_proj.weight", "BF16", {4, 64, 128}});
    t.push_back({p + "mlp.switch_mlp.down_proj.weight", "BF16", {4, 128, 64}});
  } else {
    for (int e = 0; e < 4; ++e) {
      std::string x = p + "mlp.experts." + std::to_string(e) + ".";
      append(t, linear(x + "gate_proj", 64, 128));
      append(t, linear(x + "up_proj", 64, 128));
      append(t, linear(x + "down_proj", 128, 64));
    }
  }
  return t;
}

TEST(model_folder_test, moe_stacked_and_per_expert_layouts_agree) {
  RealFileSystem fs;
  ModelDesc stacked =
      load_model_folder(folder(kQwenMoe, {{"model.safetensors", qwen_moe(true)}}), "", fs);
  ModelDesc split =
      load_model_folder(folder(kQwenMoe, {{"model.safetensors", qwen_moe(false)}}), "", fs);
  const LayerInfo& a = stacked.layers.at(0);
  const LayerInfo& b = split.layers.at(0);
  ASSERT_TRUE(a.moe && b.moe);
  const uint64_t expert = 3u * 64 * 128 * 2;
  const uint64_t non_expert =
      2 * 128 * 2 + 2 * 32 * 2 + 4 * 128 * 2 + (128 * 128 * 2 + 64 * 128 * 2) * 2;
  EXPECT_EQ(a.moe->experts, 4);
  EXPECT_EQ(a.moe->experts_per_token, 2);
  EXPECT_EQ(a.moe->expert_bytes, expert);
  EXPECT_EQ(a.moe->non_expert_bytes, non_expert);
  EXPECT_EQ(a.weight_bytes, non_expert + 4 * expert);
  EXPECT_EQ(a.read_bytes, non_expert + 2 * expert);
  EXPECT_DOUBLE_EQ(a.flops, 2.0 * (non_expert / 2) + 2 * 2.0 * (expert / 2));
  EXPECT_EQ(b.weight_bytes, a.weight_bytes);
  EXPECT_EQ(b.read_bytes, a.read_bytes);
  EXPECT_EQ(b.moe->expert_bytes, a.moe->expert_bytes);
  EXPECT_DOUBLE_EQ(b.flops, a.flops);
}

TEST(model_folder_test, latent_attention_shared_experts_and_an_unloaded_prediction_layer) {
  std::string config =
      R"({"model_type": "deepseek_v3", "hidden_size": 128, "intermediate_size": 256,
    "moe_intermediate_size": 64, "num_attention_heads": 2, "num_hidden_layers": 2, "vocab_size": 512,
    "n_routed_experts": 4, "n_shared_experts": 1, "num_experts_per_tok": 2, "first_k_dense_replace": 1,
    "q_lora_rank": 64, "kv_lora_rank": 64, "qk_nope_head_dim": 32, "qk_rope_head_dim": 32, "v_head_dim": 32,
    "num_nextn_predict_layers": 1})";
  Tensors t = {{"model.embed_tokens.weight", "BF16", {512, 128}},
               {"model.norm.weight", "BF16", {128}},
               {"lm_head.weight", "BF16", {512, 128}}};
  for (int l = 0; l < 3; ++l) {
    std::string p = "model.layers." + std::to_string(l) + ".";
    std::string a = p + "self_attn.";
    append(t, {{p + "input_layernorm.weight", "BF16", {128}},
               {p + "post_attention_layernorm.weight", "BF16", {128}},
               {a + "q_a_layernorm.weight", "BF16", {64}},
               {a + "kv_a_layernorm.weight", "BF16", {64}}});
    append(t, linear(a + "q_a_proj", 64, 128));
    append(t, linear(a + "q_b_proj", 2 * 64, 64));
    append(t, linear(a + "kv_a_proj_with_mqa", 64 + 32, 128));
    append(t, linear(a + "kv_b_proj", 2 * 64, 64));
    append(t, linear(a + "o_proj", 128, 64));
    if (l == 0) {
      append(t, linear(p + "mlp.gate_proj", 256, 128));
      append(t, linear(p + "mlp.up_proj", 256, 128));
      append(t, linear(p + "mlp.down_proj", 128, 256));
    } else {
      append(t, {{p + "mlp.gate.weight", "BF16", {4, 128}},
                 {p + "mlp.gate.e_score_correction_bias", "F32", {4}},
                 {p + "mlp.switch_mlp.gate_proj.weight", "BF16", {4, 64, 128}},
                 {p + "mlp.switch_mlp.up_proj.weight", "BF16", {4, 64, 128}},
                 {p + "mlp.switch_mlp.down_proj.weight", "BF16", {4, 128, 64}}});
      append(t, linear(p + "mlp.shared_experts.gate_proj", 64, 128));
      append(t, linear(p + "mlp.shared_experts.up_proj", 64, 128));
      append(t, linear(p + "mlp.shared_experts.down_proj", 128, 64));
    }
  }
  RealFileSystem fs;
  ModelDesc m = load_model_folder(folder(config, {{"model.safetensors", t}}), "", fs);
  ASSERT_EQ(m.num_layers(), 2);
  EXPECT_FALSE(m.layers[0].moe);
  ASSERT_TRUE(m.layers[1].moe);
  EXPECT_EQ(m.layers[1].moe->shared_experts, 1);
  EXPECT_EQ(m.layers[1].kv_bytes_per_token, (64u + 32u) * 2);
  const uint64_t attn = 2 * 128 * 2 + 2 * 64 * 2 + linear_bytes(64, 128) +
                        linear_bytes(128, 64) * 2 + linear_bytes(96, 128) + linear_bytes(128, 64);
  const uint64_t shared = 3 * linear_bytes(64, 128);
  EXPECT_EQ(m.layers[1].moe->non_expert_bytes, attn + 4 * 128 * 2 + 4 * 4 + shared);
  EXPECT_EQ(m.layers[1].moe->expert_bytes, 3u * 64 * 128 * 2);
  // Layer 2 is the multi-token-prediction layer: stored, not loaded for decoding.
  EXPECT_EQ(m.unloaded_bytes, attn + shared + 4 * 128 * 2 + 4 * 4 + 4 * 3u * 64 * 128 * 2);
  EXPECT_EQ(m.total_bytes(), m.embedding_bytes + m.head_bytes + 256 + m.layers[0].weight_bytes +
                                 m.layers[1].weight_bytes);
}

TEST(model_folder_test, gpt_oss_release_layout_with_mxfp4_blocks) {
  std::string config =
      R"({"model_type": "gpt_oss", "hidden_size": 64, "intermediate_size": 64, "head_dim": 16,
    "num_attention_heads": 4, "num_key_value_heads": 2, "num_hidden_layers": 2, "vocab_size": 256,
    "num_local_experts": 4, "num_experts_per_tok": 2, "sliding_window": 128,
    "layer_types": ["sliding_attention", "full_attention"], "quantization_config": {"quant_method": "mxfp4"}})";
  Tensors t = {{"model.embed_tokens.weight", "BF16", {256, 64}},
               {"model.norm.weight", "BF16", {64}},
               {"lm_head.weight", "BF16", {256, 64}}};
  for (int l = 0; l < 2; ++l) {
    std::string p = "model.layers." + std::to_string(l) + ".";
    append(t, {{p + "input_layernorm.weight", "BF16", {64}},
               {p + "post_attention_layernorm.weight", "BF16", {64}},
               {p + "self_attn.sinks", "BF16", {4}},
               {p + "self_attn.q_proj.bias", "BF16", {64}},
               {p + "self_attn.k_proj.bias", "BF16", {32}},
               {p + "self_attn.v_proj.bias", "BF16", {32}},
               {p + "self_attn.o_proj.bias", "BF16", {64}},
               {p + "mlp.router.weight", "BF16", {4, 64}},
               {p + "mlp.router.bias", "BF16", {4}},
               {p + "mlp.experts.gate_up_proj_blocks", "U8", {4, 128, 2, 16}},
               {p + "mlp.experts.gate_up_proj_scales", "U8", {4, 128, 2}},
               {p + "mlp.experts.gate_up_proj_bias", "BF16", {4, 128}},
               {p + "mlp.experts.down_proj_blocks", "U8", {4, 64, 2, 16}},
               {p + "mlp.experts.down_proj_scales", "U8", {4, 64, 2}},
               {p + "mlp.experts.down_proj_bias", "BF16", {4, 64}}});
    append(t, linear(p + "self_attn.q_proj", 64, 64));
    append(t, linear(p + "self_attn.k_proj", 32, 64));
    append(t, linear(p + "self_attn.v_proj", 32, 64));
    append(t, linear(p + "self_attn.o_proj", 64, 64));
  }
  RealFileSystem fs;
  ModelDesc m = load_model_folder(folder(config, {{"model.safetensors", t}}), "", fs);
  EXPECT_EQ(m.quantization, "mxfp4-bf16");
  EXPECT_EQ(m.layers[0].sliding_window, 128);
  EXPECT_EQ(m.layers[1].sliding_window, 0);
  EXPECT_EQ(m.layers[0].kv_bytes(4096), 128.0 * 2 * 2 * 16 * 2);
  ASSERT_TRUE(m.layers[0].moe);
  // Per expert: (128 + 64) x 64 fp4 values, one exponent byte per 32, bf16 biases.
  EXPECT_EQ(m.layers[0].moe->expert_bytes, 192u * 64 / 2 + 192u * 64 / 32 + 192u * 2);
  EXPECT_DOUBLE_EQ(m.layers[0].moe->expert_flops, 2.0 * (192 * 64 + 192));
  for (const auto& x : m.tensors) {
    if (x.name == "model.layers.0.mlp.experts.down_proj") {
      EXPECT_EQ(x.dtype, "mxfp4");
      EXPECT_EQ(x.shape, (std::vector<int64_t>{4, 64, 64}));
    }
  }
}

TEST(model_folder_test, config_alone_matches_the_catalog) {
  // The catalog's Llama-3.2-3B config written out as a bare config.json.
  std::string dir = testing::temp_dir();
  write_bytes(dir + "/config.json",
              R"({"model_type": "llama", "hidden_size": 3072, "intermediate_size": 8192,
    "num_attention_heads": 24, "num_hidden_layers": 28, "num_key_value_heads": 8, "head_dim": 128,
    "vocab_size": 128256, "tie_word_embeddings": true, "torch_dtype": "bfloat16"})");
  RealFileSystem fs;
  for (std::string q : {"", "4bit", "8bit"}) {
    ModelDesc disk = load_model(dir + "/config.json", q, fs);
    ModelDesc cat = ModelCatalog::builtin().resolve("llama-3.2-3b", q.empty() ? "bf16" : q);
    EXPECT_EQ(disk.total_bytes(), cat.total_bytes()) << q;
    EXPECT_EQ(disk.layers[5].weight_bytes, cat.layers[5].weight_bytes) << q;
  }
  // A folder with config.json and the index but no weight files is computed the same way.
  write_bytes(dir + "/model.safetensors.index.json",
              R"({"weight_map": {"lm_head.weight": "model-00001-of-00002.safetensors"}})");
  ModelDesc folder_model = load_model(dir, "", fs);
  EXPECT_EQ(folder_model.total_bytes(),
            ModelCatalog::builtin().resolve("llama-3.2-3b", "bf16").total_bytes());
  EXPECT_NE(folder_model.source.find("no weight files"), std::string::npos);
}

TEST(model_folder_test, bad_folders_name_the_file) {
  std::string empty = testing::temp_dir();
  EXPECT_NE(error_of(empty).find(empty + ": no config.json in this folder"), std::string::npos);

  // A layer the config promises is missing from the files.
  Tensors t = {{"model.embed_tokens.weight", "BF16", {512, 128}}};
  append(t, llama_layer(0, 16));
  std::string dir = folder(llama_config(true), {{"model.safetensors", t}});
  EXPECT_NE(error_of(dir).find("hold no tensor of layer 1, but config.json has 2 layers"),
            std::string::npos);

  // A layer beyond the config's count.
  append(t, llama_layer(1, 16));
  append(t, llama_layer(2, 16));
  dir = folder(llama_config(true), {{"model.safetensors", t}});
  EXPECT_NE(error_of(dir).find("belongs to layer 2, but the config has 2 layers"),
            std::string::npos);

  // Scales without their values.
  dir = folder(llama_config(true, R"(, "quantization": {"group_size": 64, "bits": 4})"),
               {{"model.safetensors", {{"model.layers.0.mlp.up_proj.scales", "BF16", {256, 2}}}}});
  EXPECT_NE(
      error_of(dir).find(
          "model.layers.0.mlp.up_proj.scales is the scales of model.layers.0.mlp.up_proj.weight"),
      std::string::npos);

  // A truncated weight file: the header claims more than the file holds.
  dir = folder(llama_config(true), {});
  std::string file = safetensors_file(llama_layer(0, 16));
  write_bytes(dir + "/model.safetensors", file.substr(0, file.size() / 2));
  std::string e = error_of(dir);
  EXPECT_NE(e.find(dir + "/model.safetensors"), std::string::npos) << e;
  EXPECT_NE(e.find("lies beyond the data"), std::string::npos) << e;

  // The index names a file that is not there while others are.
  dir = folder(llama_config(true), {{"a.safetensors", llama_layer(0, 16)}});
  write_bytes(
      dir + "/model.safetensors.index.json",
      R"({"weight_map": {"model.layers.0.mlp.up_proj.weight": "a.safetensors", "x": "b.safetensors"}})");
  EXPECT_NE(
      error_of(dir).find(
          dir + "/b.safetensors: this file (listed in model.safetensors.index.json) is missing"),
      std::string::npos);

  // Weights whose bytes the config alone cannot give.
  dir = folder(
      R"({"model_type": "llama", "hidden_size": 128, "intermediate_size": 256, "num_attention_heads": 4,
    "num_hidden_layers": 2, "vocab_size": 512, "quantization_config": {"quant_method": "compressed-tensors"}})",
      {});
  e = error_of(dir);
  EXPECT_NE(
      e.find(
          "config.json (/quantization_config): cannot compute the bytes of \"compressed-tensors\""),
      std::string::npos)
      << e;
}

}  // namespace
}  // namespace meshplan::model_folder_test
