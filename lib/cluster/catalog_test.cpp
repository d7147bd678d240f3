#include "lib/cluster/catalog.hpp"

#include <gtest/gtest.h>

#include "lib/cluster/cluster_reader.hpp"

namespace meshplan::catalog_test {
namespace {

const Catalog& cat() {
  return Catalog::builtin();
}

TEST(catalog_test, machine_thunderbolt_budgets_match_the_issue) {
  struct Case {
    const char* machine;
    int generation;
    size_t ports;
  };
  for (const Case& c : {Case{"mac-studio-m3-ultra", 5, 6}, Case{"mac-studio-m2-ultra", 4, 6},
                        Case{"mac-mini-m4-pro", 5, 3}, Case{"macbook-pro-m4-max", 5, 3}}) {
    const MachineSpec* m = cat().find_machine(c.machine);
    ASSERT_NE(m, nullptr) << c.machine;
    EXPECT_EQ(m->tb_generation, c.generation) << c.machine;
    EXPECT_EQ(m->tb_interfaces.size(), c.ports) << c.machine;
  }
}

TEST(catalog_test, apple_fp16_equals_fp32_and_figures_have_sources) {
  const ChipSpec* m3u = cat().find_chip("m3-ultra-80c");
  ASSERT_NE(m3u, nullptr);
  EXPECT_DOUBLE_EQ(m3u->mem_bandwidth, 819e9);
  EXPECT_DOUBLE_EQ(m3u->fp16_flops, 28.6e12);  // the FP32 rate: no 2x packed FP16 on Apple GPUs
  for (const auto& chip : cat().chips()) {
    EXPECT_GT(chip.mem_bandwidth, 0) << chip.key;
    EXPECT_GT(chip.fp16_flops, 0) << chip.key;
    EXPECT_GT(chip.max_memory, 0u) << chip.key;
    for (const char* figure : {"mem_bandwidth_GBps", "fp16_tflops", "max_memory_GiB"})
      EXPECT_TRUE(chip.sources.count(figure)) << chip.key << " has no source for " << figure;
  }
  for (const char* nvidia : {"h100-sxm", "h200", "rtx-4090", "gb10"})
    EXPECT_NE(cat().find_chip(nvidia), nullptr) << nvidia;
}

TEST(catalog_test, every_machine_chip_exists) {
  for (const auto& m : cat().machines())
    for (const auto& c : m.chips)
      EXPECT_NE(cat().find_chip(c), nullptr) << m.key << " lists " << c;
}

TEST(catalog_test, brand_and_model_id_lookups) {
  EXPECT_EQ(cat().chip_for_brand("Apple M3 Ultra", 60)->key, "m3-ultra-60c");
  EXPECT_EQ(cat().chip_for_brand("Apple M3 Ultra", 0)->key, "m3-ultra-80c");
  EXPECT_EQ(cat().chip_for_brand("Apple M3 Ultra", 99), nullptr);
  EXPECT_EQ(cat().machine_for_model_id("Mac15,14")->key, "mac-studio-m3-ultra");
  EXPECT_EQ(cat().default_machine("m4-pro-20c")->key, "mac-mini-m4-pro");
}

TEST(catalog_test, cost_defaults_follow_spec_section_7) {
  EXPECT_DOUBLE_EQ(cat().efficiency("apple").bandwidth, 0.55);
  EXPECT_DOUBLE_EQ(cat().efficiency("apple").flops, 0.6);
  EXPECT_DOUBLE_EQ(cat().efficiency("apple").decode_flops, 0.4);
  EXPECT_DOUBLE_EQ(cat().efficiency("nvidia").decode_flops, cat().efficiency("nvidia").flops);
  EXPECT_DOUBLE_EQ(cat().stage_overhead_s(), 0.5e-3);
  EXPECT_DOUBLE_EQ(cat().stage_overhead_s("apple"), 0.5e-3);
  EXPECT_DOUBLE_EQ(cat().stage_overhead_s("nvidia"), 0.05e-3);
  EXPECT_DOUBLE_EQ(cat().link_defaults(LinkKind::kTb5, true).latency_s, 50e-6);
  EXPECT_DOUBLE_EQ(cat().link_defaults(LinkKind::kTb5, true).bandwidth, 6.5e9);
  EXPECT_DOUBLE_EQ(cat().link_defaults(LinkKind::kTb5, false).bandwidth, 4e9);
  EXPECT_DOUBLE_EQ(cat().link_defaults(LinkKind::kTb4, false).latency_s, 300e-6);
  EXPECT_DOUBLE_EQ(cat().link_defaults(LinkKind::k10gbe, false).bandwidth, 1.15e9);
  EXPECT_DOUBLE_EQ(cat().link_defaults(LinkKind::k1gbe, false).latency_s, 250e-6);
  EXPECT_DOUBLE_EQ(cat().link_defaults(LinkKind::kWifi, false).latency_s, 4e-3);
}

// A decode step's products run on an M5's shader ALUs, not its Neural Accelerators: the decode
// peak is a quarter of the spec figure there, and the spec figure on every other chip.
TEST(catalog_test, m5_decode_peak_leaves_out_the_neural_accelerators) {
  const ChipSpec* m5max = cat().find_chip("m5-max-40c");
  ASSERT_NE(m5max, nullptr);
  EXPECT_DOUBLE_EQ(m5max->fp16_flops, 68.8e12);
  EXPECT_DOUBLE_EQ(m5max->decode_flops, 17.2e12);
  EXPECT_EQ(m5max->sources.count("decode_tflops"), 1u);
  for (const char* key : {"m3-ultra-80c", "m4-pro-20c", "h100-sxm"}) {
    const ChipSpec* c = cat().find_chip(key);
    ASSERT_NE(c, nullptr) << key;
    EXPECT_DOUBLE_EQ(c->decode_flops, c->fp16_flops) << key;
  }
}

TEST(catalog_test, default_ports_of_a_laptop_start_at_en1) {
  auto ports = default_ports(*cat().find_machine("macbook-pro-m4-max"));
  ASSERT_EQ(ports.size(), 3u);
  EXPECT_EQ(ports[0].interface, "en1");
  EXPECT_EQ(ports[2].rdma_device, "rdma_en3");
}

}  // namespace
}  // namespace meshplan::catalog_test
