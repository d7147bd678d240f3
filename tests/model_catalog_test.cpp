#include "lib/model_catalog.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

#include "lib/error.hpp"
#include "tests/test_support.hpp"

namespace meshplan {
namespace {

struct Card {
  std::string id;
  int layers = 0;
  int hidden = 0;
  uint64_t storage = 0;
};

std::map<std::string, Card> exo_cards() {
  std::ifstream in(testing::fixture_path("exo_model_cards.csv"));
  std::string line;
  std::getline(in, line);  // header
  std::map<std::string, Card> cards;
  while (std::getline(in, line)) {
    std::vector<std::string> f;
    std::stringstream ss(line);
    std::string cell;
    while (std::getline(ss, cell, ',')) f.push_back(cell);
    if (f.size() < 9) continue;
    Card c{f[0], std::stoi(f[4]), std::stoi(f[5]), std::stoull(f[8])};
    cards[c.id] = c;
  }
  return cards;
}

// The exo cards store some sizes as a round "N GB" (or "N MB") multiplied by 2^30 (2^20): for
// example DeepSeek-V3.1-8bit is exactly 713 GiB while its safetensors hold 712.97 GB. Such a
// figure is compared in the unit it was written in.
bool within(double computed, uint64_t card, double tolerance) {
  auto close = [&](double reference) { return std::fabs(computed - reference) <= tolerance * reference; };
  if (close(static_cast<double>(card))) return true;
  if (card % (1ull << 30) == 0) return close(static_cast<double>(card) / (1ull << 30) * 1e9);
  if (card % (1ull << 20) == 0) return close(static_cast<double>(card) / (1ull << 20) * 1e6);
  return false;
}

TEST(model_catalog_test, total_bytes_within_3_percent_of_mlx_community_cards) {
  auto cards = exo_cards();
  const ModelCatalog& catalog = ModelCatalog::builtin();
  int checked = 0;
  for (const auto& entry : catalog.entries()) {
    for (const auto& [quant, repo] : entry.repos) {
      auto it = cards.find(repo);
      if (it == cards.end()) continue;
      ModelDesc m = catalog.resolve(entry.name, quant);
      EXPECT_EQ(m.num_layers(), it->second.layers) << repo;
      EXPECT_EQ(m.hidden_size, it->second.hidden) << repo;
      EXPECT_TRUE(within(static_cast<double>(m.total_bytes()), it->second.storage, 0.03))
          << repo << ": computed " << m.total_bytes() << ", card " << it->second.storage;
      ++checked;
    }
  }
  EXPECT_GE(checked, 8);
}

TEST(model_catalog_test, deepseek_shape) {
  ModelDesc m = ModelCatalog::builtin().resolve("deepseek-v3.1-4bit", "");
  EXPECT_EQ(m.name, "deepseek-v3.1-4bit");
  ASSERT_EQ(m.num_layers(), 61);
  for (int l = 0; l < 3; ++l) EXPECT_FALSE(m.layers[l].moe) << "layer " << l << " is dense";
  ASSERT_TRUE(m.layers[3].moe);
  EXPECT_EQ(m.layers[3].moe->experts, 256);
  EXPECT_EQ(m.layers[3].moe->experts_per_token, 8);
  EXPECT_EQ(m.layers[3].moe->shared_experts, 1);
  // MLA caches the 512-wide latent and the 64-wide rope key in bf16.
  EXPECT_EQ(m.layers[10].kv_bytes_per_token, (512u + 64u) * 2);
  // A MoE layer reads far less than it holds.
  EXPECT_LT(m.layers[10].read_bytes * 10, m.layers[10].weight_bytes);
  EXPECT_FALSE(m.tied_embeddings);
  EXPECT_GT(m.head_bytes, 0u);
}

TEST(model_catalog_test, gqa_kv_and_tied_head) {
  ModelDesc m = ModelCatalog::builtin().resolve("llama-3.2-3b", "4bit");
  EXPECT_EQ(m.layers[0].kv_bytes_per_token, 2u * 8 * 128 * 2);
  EXPECT_TRUE(m.tied_embeddings);
  EXPECT_EQ(m.head_bytes, 0u);
  EXPECT_EQ(m.head_read_bytes(), m.embedding_bytes);
  // Dense: every byte is read per token; FLOPs are 2 x parameters.
  EXPECT_EQ(m.layers[0].read_bytes, m.layers[0].weight_bytes);
  double params = 3072.0 * 3072 * 2 + 3072.0 * 1024 * 2 + 3.0 * 3072 * 8192 + 2 * 3072;
  EXPECT_DOUBLE_EQ(m.layers[0].flops, 2 * params);
}

TEST(model_catalog_test, quantization_override_and_names) {
  const ModelCatalog& c = ModelCatalog::builtin();
  ModelDesc q8 = c.resolve("qwen3-235b-a22b-4bit", "8bit");
  EXPECT_EQ(q8.name, "qwen3-235b-a22b-8bit");
  ModelDesc q4 = c.resolve("qwen3-235b-a22b", "");
  EXPECT_EQ(q4.quantization, "4bit");
  EXPECT_GT(q8.total_bytes(), q4.total_bytes() * 18 / 10);
  EXPECT_EQ(c.resolve("mlx-community/DeepSeek-V3.1-8bit", "").name, "deepseek-v3.1-8bit");
  try {
    c.resolve("gpt-9", "");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(exit_code(e.kind()), 2);
    EXPECT_NE(std::string(e.what()).find("unknown model \"gpt-9\""), std::string::npos);
  }
  try {
    c.resolve("llama-3.2-3b", "7bit");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("unknown quantization"), std::string::npos);
  }
}

}  // namespace
}  // namespace meshplan
