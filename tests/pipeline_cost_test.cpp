#include "solvers/problem/pipeline_cost.hpp"
#include "solvers/pipeline/pipeline_fill.hpp"

#include <gtest/gtest.h>

#include "tests/plan_fixtures.hpp"

namespace meshplan::pipeline_cost_test {
namespace {

// The 4-layer model, with 10 heads of 100 dimensions.
ModelDesc tiny_model() {
  return testing::tiny_model(10, 0, 100);
}

HostFigures host(const std::string& name, double bw, double flops, double usable) {
  return testing::test_host(name, bw, flops, usable);
}

LinkFigures link(double latency, double bw) {
  LinkFigures l;
  l.name = "10gbe";
  l.latency_s = latency;
  l.bandwidth = bw;
  l.network = 0;
  return l;
}

TEST(pipeline_cost_test, stage_hop_head_and_total_by_hand) {
  ModelDesc m = tiny_model();
  std::vector<HostFigures> hosts = {host("a", 1e11, 1e12, 1e9), host("b", 5e10, 1e12, 1e9)};
  std::vector<std::vector<std::optional<LinkFigures>>> links(
      2, std::vector<std::optional<LinkFigures>>(2));
  links[0][1] = links[1][0] = link(150e-6, 1.15e9);
  PipelineCostModel cost(m, hosts, links, /*context=*/1000, /*prompt=*/100, /*activation bytes=*/2);
  // Layer on a: memory (1e8 + 1000*1000) / 1e11 = 1.01 ms beats compute 2e8/1e12 = 0.2 ms.
  EXPECT_NEAR(cost.layer_time(0, 0), 1.01e-3, 1e-12);
  EXPECT_NEAR(cost.layer_time(1, 0), 2.02e-3, 1e-12);
  EXPECT_NEAR(cost.stage_time(0, 0, 3), 3 * 1.01e-3 + 0.5e-3, 1e-12);
  EXPECT_DOUBLE_EQ(cost.stage_time(0, 2, 2), 0);
  // Hop: 150 us + 2 * 1000 bytes / 1.15e9.
  EXPECT_NEAR(cost.hop_time(0, 1), 150e-6 + 2000 / 1.15e9, 1e-15);
  // Head: max(2*V*h / F, head bytes / BW) = max(1e6/1e12, 2e6/1e11) = 20 us.
  EXPECT_NEAR(cost.head_time(0), 2e-5, 1e-15);
  PipelineAssignment a{{0, 1}, {0, 3, 4}};
  PipelineEvaluation e = cost.evaluate(a);
  ASSERT_TRUE(e.feasible) << e.shortfall;
  double expect = (3 * 1.01e-3 + 0.5e-3) + (2.02e-3 + 0.5e-3) + 2e-5 + 2 * (150e-6 + 2000 / 1.15e9);
  EXPECT_NEAR(e.token_latency_s, expect, 1e-12);
  // Memory: rank 0 holds 3 layers, their KV at 1000 tokens, embedding and head.
  EXPECT_DOUBLE_EQ(e.memory_bytes[0], 3e8 + 3e6 + 3e6);
  EXPECT_DOUBLE_EQ(e.memory_bytes[1], 1e8 + 1e6);
}

TEST(pipeline_cost_test, single_host_has_no_hops_and_reports_shortfall) {
  ModelDesc m = tiny_model();
  std::vector<HostFigures> hosts = {host("small", 1e11, 1e12, 2e8)};
  std::vector<std::vector<std::optional<LinkFigures>>> links(
      1, std::vector<std::optional<LinkFigures>>(1));
  PipelineCostModel cost(m, hosts, links, 1000, 100, 2);
  PipelineEvaluation e = cost.evaluate({{0}, {0, 4}});
  EXPECT_TRUE(e.hops.empty());
  EXPECT_DOUBLE_EQ(e.hops_s, 0);
  EXPECT_FALSE(e.feasible);
  EXPECT_NE(e.shortfall.find("small needs"), std::string::npos) << e.shortfall;
  EXPECT_NE(e.shortfall.find("short"), std::string::npos) << e.shortfall;
}

TEST(pipeline_cost_test, missing_link_makes_the_ring_infeasible) {
  ModelDesc m = tiny_model();
  std::vector<HostFigures> hosts = {host("a", 1e11, 1e12, 1e9), host("b", 1e11, 1e12, 1e9)};
  std::vector<std::vector<std::optional<LinkFigures>>> links(
      2, std::vector<std::optional<LinkFigures>>(2));
  PipelineCostModel cost(m, hosts, links, 1000, 100, 2);
  PipelineEvaluation e = cost.evaluate({{0, 1}, {0, 2, 4}});
  EXPECT_FALSE(e.feasible);
  EXPECT_NE(e.shortfall.find("no usable link"), std::string::npos);
  EXPECT_EQ(cost.hop_time(0, 1), kInfinity);
}

TEST(pipeline_cost_test, sliding_window_caps_kv) {
  LayerInfo l;
  l.kv_bytes_per_token = 10;
  l.sliding_window = 128;
  EXPECT_DOUBLE_EQ(l.kv_bytes(100), 1000);
  EXPECT_DOUBLE_EQ(l.kv_bytes(10000), 1280);
}

TEST(pipeline_cost_test, backend_from_hops) {
  LinkFigures rdma;
  rdma.rdma = true;
  rdma.thunderbolt = true;
  rdma.cable = 0;
  LinkFigures tb;
  tb.thunderbolt = true;
  tb.cable = 1;
  LinkFigures net;
  net.network = 0;
  EXPECT_EQ(pipeline_backend({}), "none");
  EXPECT_EQ(pipeline_backend({rdma, rdma}), "jaccl");
  EXPECT_EQ(pipeline_backend({rdma, rdma, rdma}), "jaccl-ring");
  EXPECT_EQ(pipeline_backend({rdma, tb, rdma}), "ring");
  EXPECT_EQ(pipeline_backend({tb, net}), "ethernet");
}

}  // namespace
}  // namespace meshplan::pipeline_cost_test
