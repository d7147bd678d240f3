#include "lib/models/expert_load.hpp"

#include <gtest/gtest.h>

#include "lib/core/error.hpp"
#include "lib/models/model_catalog.hpp"

namespace meshplan::expert_load_test {
namespace {

// A model with a dense layer 0 and MoE layers 1-3 of four experts.
ModelDesc small_moe() {
  ModelDesc m;
  m.name = "small-moe";
  for (int i = 0; i < 4; ++i) {
    LayerInfo l;
    l.index = i;
    if (i > 0) {
      MoeLayerInfo moe;
      moe.experts = 4;
      moe.experts_per_token = 2;
      l.moe = moe;
    }
    m.layers.push_back(l);
  }
  return m;
}

std::string error_of(const std::string& text, const std::string& file = "load.yaml") {
  try {
    parse_expert_load(text, file, small_moe());
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kBadInput);
    return e.what();
  }
  return "";
}

TEST(expert_load_test, reads_layers_and_ranges_and_normalises) {
  ExpertLoad load = parse_expert_load(R"(
schema: meshplan.expert-load/1
layers:
  - layer: 1
    load: [6, 2, 2, 0]
  - layers: 2-3
    load: [0.25, 0.25, 0.25, 0.25]
)",
                                      "load.yaml", small_moe());
  EXPECT_EQ(load.source, "load.yaml");
  ASSERT_NE(load.find(1), nullptr);
  EXPECT_EQ(*load.find(1), (std::vector<double>{0.6, 0.2, 0.2, 0.0}));
  EXPECT_EQ(load.find(0), nullptr);
  // A range shares one distribution.
  EXPECT_EQ(load.distribution_index(2), load.distribution_index(3));
  EXPECT_EQ(load.distributions.size(), 2u);
  // JSON works the same.
  ExpertLoad json = parse_expert_load(R"({"layers": [{"layer": 3, "load": [1, 1, 1, 5]}]})",
                                      "load.json", small_moe());
  EXPECT_DOUBLE_EQ((*json.find(3))[3], 0.625);
  EXPECT_EQ(json.find(1), nullptr) << "layers not named stay uniform";
}

TEST(expert_load_test, errors_name_the_position_and_the_expected_form) {
  EXPECT_NE(error_of("layers:\n  - layer: 1\n    load: [1, 2]\n").find("load.yaml:3:11"),
            std::string::npos);
  EXPECT_NE(error_of("layers:\n  - layer: 1\n    load: [1, 2]\n").find("expected 4 loads"),
            std::string::npos);
  EXPECT_NE(error_of("layers:\n  - layer: 1\n    load: [1, -2, 1, 1]\n")
                .find("expected a non-negative load"),
            std::string::npos);
  EXPECT_NE(error_of("layers:\n  - layer: 0\n    load: [1, 1, 1, 1]\n")
                .find("layer 0 of small-moe has no routed experts"),
            std::string::npos);
  EXPECT_NE(error_of("layers:\n  - layer: 9\n    load: [1, 1, 1, 1]\n").find("has layers 0 to 3"),
            std::string::npos);
  EXPECT_NE(
      error_of("layers:\n  - layer: 1\n    load: [0, 0, 0, 0]\n").find("at least one positive"),
      std::string::npos);
  EXPECT_NE(error_of("layers:\n  - layers: 1-2\n    load: [1, 1, 1, 1]\n  - layer: 2\n    load: "
                     "[1, 1, 1, 1]\n")
                .find("layer 2 is given twice"),
            std::string::npos);
  EXPECT_NE(error_of("layers:\n  - layers: 3-1\n    load: [1, 1, 1, 1]\n").find("before the first"),
            std::string::npos);
  EXPECT_NE(error_of("layers:\n  - layer: 1\n    loads: [1, 1, 1, 1]\n").find("loads"),
            std::string::npos);
  EXPECT_NE(error_of("layers:\n  - load: [1, 1, 1, 1]\n").find("exactly one of"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"layers": [{"layer": 1, "load": [1, 1, "x", 1]}]})", "l.json")
                .find("l.json (/layers/0/load/2)"),
            std::string::npos);
  EXPECT_NE(error_of("schema: other/1\nlayers: []\n").find("meshplan.expert-load/1"),
            std::string::npos);
}

TEST(expert_load_test, catalog_model_checks_expert_counts) {
  ModelDesc deepseek = ModelCatalog::builtin().resolve("deepseek-v3.1-4bit", "");
  std::string loads = "[";
  for (int e = 0; e < 256; ++e)
    loads += (e ? ", " : "") + std::to_string(e == 7 ? 100 : 1);
  loads += "]";
  ExpertLoad load =
      parse_expert_load("layers:\n  - layers: 3-60\n    load: " + loads + "\n", "d.yaml", deepseek);
  EXPECT_EQ(load.layer_distribution.size(), 58u);
  EXPECT_THROW(
      parse_expert_load("layers:\n  - layers: 2-60\n    load: " + loads + "\n", "d.yaml", deepseek),
      Error)
      << "layer 2 of DeepSeek is dense";
}

}  // namespace
}  // namespace meshplan::expert_load_test
