// `meshplan models` and `plan -m PATH` through the real binary.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "tests/safetensors_writer.hpp"
#include "tests/test_support.hpp"

namespace meshplan::models_cli_test {
namespace {

using testing::run_meshplan;
using testing::write_bytes;

constexpr const char* kConfig =
    R"({"model_type": "llama", "hidden_size": 128, "intermediate_size": 256,
  "num_attention_heads": 4, "num_key_value_heads": 2, "num_hidden_layers": 2, "vocab_size": 512,
  "tie_word_embeddings": true})";

// A complete small model folder: config.json and one safetensors file.
std::string model_dir() {
  std::string dir = testing::temp_dir() + "/tiny-llama";
  std::filesystem::create_directories(dir);
  write_bytes(dir + "/config.json", kConfig);
  std::vector<testing::StTensor> t = {{"model.embed_tokens.weight", "BF16", {512, 128}},
                                      {"model.norm.weight", "BF16", {128}}};
  for (int l = 0; l < 2; ++l) {
    std::string p = "model.layers." + std::to_string(l) + ".";
    for (auto x :
         std::vector<testing::StTensor>{{p + "input_layernorm.weight", "BF16", {128}},
                                        {p + "post_attention_layernorm.weight", "BF16", {128}},
                                        {p + "self_attn.q_proj.weight", "BF16", {128, 128}},
                                        {p + "self_attn.k_proj.weight", "BF16", {64, 128}},
                                        {p + "self_attn.v_proj.weight", "BF16", {64, 128}},
                                        {p + "self_attn.o_proj.weight", "BF16", {128, 128}},
                                        {p + "mlp.gate_proj.weight", "BF16", {256, 128}},
                                        {p + "mlp.up_proj.weight", "BF16", {256, 128}},
                                        {p + "mlp.down_proj.weight", "BF16", {128, 256}}})
      t.push_back(x);
  }
  write_bytes(dir + "/model.safetensors", testing::safetensors_file(t));
  return dir;
}

TEST(models_cli_test, lists_the_catalog) {
  auto r = run_meshplan({"models"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* name : {"llama-3.2-3b-4bit", "llama-3.1-405b-bf16", "qwen3-32b-8bit",
                           "deepseek-v3.1-fp8", "kimi-k2-4bit", "gpt-oss-20b-mxfp4-q8",
                           "gpt-oss-120b-mxfp4-bf16", "mixtral-8x7b-4bit", "dbrx-8bit"})
    EXPECT_NE(r.out.find(name), std::string::npos) << name;
  auto j = run_meshplan({"models", "--json"});
  ASSERT_EQ(j.exit_code, 0);
  auto list = nlohmann::json::parse(j.out);
  ASSERT_TRUE(list.is_array());
  EXPECT_GE(list.size(), 13u * 3);
  for (const auto& m : list) {
    EXPECT_TRUE(m.contains("name") && m.contains("total_bytes") && m.contains("num_layers") &&
                m.contains("source"));
  }
}

TEST(models_cli_test, json_keys_of_a_moe_model) {
  auto r = run_meshplan({"models", "deepseek-v3.1", "--quant", "8bit", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto m = nlohmann::json::parse(r.out);
  for (const char* key :
       {"name", "quantization", "hidden_size", "vocab_size", "num_layers", "embedding_bytes",
        "head_bytes", "total_bytes", "layers", "dense_layers", "source"})
    EXPECT_TRUE(m.contains(key)) << key;
  EXPECT_EQ(m["name"], "deepseek-v3.1-8bit");
  EXPECT_EQ(m["dense_layers"], nlohmann::json::array({0, 1, 2}));
  ASSERT_EQ(m["layers"].size(), 61u);
  const auto& dense = m["layers"][0];
  const auto& moe = m["layers"][3];
  for (const char* key : {"index", "weight_bytes", "read_bytes", "flops", "kv_bytes_per_token"})
    EXPECT_TRUE(dense.contains(key));
  EXPECT_FALSE(dense.contains("experts"));
  EXPECT_EQ(moe["experts"], 256);
  EXPECT_EQ(moe["experts_per_token"], 8);
  EXPECT_TRUE(moe.contains("expert_bytes"));
  uint64_t sum = m["embedding_bytes"].get<uint64_t>() + m["head_bytes"].get<uint64_t>() +
                 m["other_bytes"].get<uint64_t>();
  for (const auto& l : m["layers"])
    sum += l["weight_bytes"].get<uint64_t>();
  EXPECT_EQ(sum, m["total_bytes"].get<uint64_t>());
}

TEST(models_cli_test, shows_a_model_with_a_compressed_table) {
  auto r = run_meshplan({"models", "deepseek-v3.1-4bit"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("KV cache     67.0 MiB per 1000 tokens"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("256 routed, 8 per token, 1 shared"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("dense layers 0-2"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\n3-60 "), std::string::npos) << r.out;
}

TEST(models_cli_test, reads_a_model_folder_and_plans_with_it) {
  std::string dir = model_dir();
  auto r = run_meshplan({"models", dir, "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto m = nlohmann::json::parse(r.out);
  EXPECT_EQ(m["name"], "tiny-llama");
  EXPECT_EQ(m["num_layers"], 2);
  EXPECT_EQ(m["layers"][0]["weight_bytes"],
            2 * 128 * 2 + 2 * (128 * 128 * 2 + 64 * 128 * 2 + 3 * 256 * 128));
  EXPECT_EQ(m["tied_embeddings"], true);
  auto text = run_meshplan({"models", dir});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("0-1 "), std::string::npos) << text.out;
  auto at4 = run_meshplan({"models", dir + "/config.json", "--quant", "4bit", "--json"});
  ASSERT_EQ(at4.exit_code, 0) << at4.err;
  EXPECT_LT(nlohmann::json::parse(at4.out)["total_bytes"].get<uint64_t>(),
            m["total_bytes"].get<uint64_t>());
  auto plan = run_meshplan({"plan", "-c",
                            testing::source_path("examples/clusters/mac-studio-m3-ultra-x4.yaml"),
                            "-m", dir, "--hosts", "m3-ultra-1,m3-ultra-2"});
  EXPECT_EQ(plan.exit_code, 0) << plan.err;
  EXPECT_NE(plan.out.find("tokens/s"), std::string::npos) << plan.out;
}

struct BadCase {
  std::string what;
  std::string config;
  std::string weights;  // empty: no weight file
  std::string expected;
};

TEST(models_cli_test, bad_input_exits_2_naming_the_file_and_field) {
  std::string valid_weights =
      testing::safetensors_file({{"model.layers.0.mlp.up_proj.weight", "BF16", {256, 128}}});
  std::string big_length = std::string("\xff\xff\xff\xff\x00\x00\x00\x00", 8) + "{}";
  std::string header = R"({"t": {"dtype": "BF16", "shape": [-4], "data_offsets": [0, 8]}})";
  std::string absurd_shape = std::string(1, static_cast<char>(header.size())) +
                             std::string(7, '\0') + header + std::string(8, '\0');
  header = R"({"t": {"dtype": "Q9", "shape": [4], "data_offsets": [0, 8]}})";
  std::string bad_dtype = std::string(1, static_cast<char>(header.size())) + std::string(7, '\0') +
                          header + std::string(8, '\0');
  const std::vector<BadCase> cases = {
      {"malformed", "{\"model_type\": \"llama\",\n  \"hidden_size\": }", "",
       "config.json:2:18: malformed JSON"},
      {"missing", R"({"model_type": "llama", "hidden_size": 128})", "",
       "config.json (/): missing required key \"num_hidden_layers\""},
      {"unknown", R"({"model_type": "rwkv"})", "",
       "config.json (/model_type): unknown architecture \"rwkv\""},
      {"absurd", R"({"model_type": "llama", "hidden_size": 99999999999, "num_hidden_layers": 2})",
       "", "config.json (/hidden_size): expected hidden_size between 1 and"},
      {"truncated", kConfig, std::string("\x05\x00", 2),
       "model.safetensors: truncated safetensors file: 2 bytes"},
      {"too long", kConfig, big_length,
       "model.safetensors: header length 4294967295 exceeds the 100000000 byte limit"},
      {"longer than the file", kConfig, std::string("\x88\x13\x00\x00\x00\x00\x00\x00", 8) + "{}",
       "model.safetensors: header length 5000 is larger than the file"},
      {"beyond", kConfig, valid_weights.substr(0, valid_weights.size() - 10),
       "lies beyond the data"},
      {"shape", kConfig, absurd_shape,
       "model.safetensors (/t/shape/0): expected a dimension between 0 and"},
      {"dtype", kConfig, bad_dtype, "model.safetensors (/t/dtype): unknown dtype \"Q9\""},
  };
  for (const auto& c : cases) {
    std::string dir = testing::temp_dir();
    write_bytes(dir + "/config.json", c.config);
    if (!c.weights.empty()) write_bytes(dir + "/model.safetensors", c.weights);
    auto r = run_meshplan({"models", dir});
    EXPECT_EQ(r.exit_code, 2) << c.what << ": " << r.err;
    EXPECT_NE(r.err.find(c.expected), std::string::npos) << c.what << ": " << r.err;
    EXPECT_NE(r.err.find(dir), std::string::npos) << c.what << ": " << r.err;
  }
  auto unknown = run_meshplan({"models", "gpt-9"});
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.err.find("unknown model \"gpt-9\""), std::string::npos);
  auto quant = run_meshplan({"models", "dbrx", "--quant", "3.5bit"});
  EXPECT_EQ(quant.exit_code, 2);
  EXPECT_NE(quant.err.find("unknown quantization \"3.5bit\""), std::string::npos);
}

}  // namespace
}  // namespace meshplan::models_cli_test
