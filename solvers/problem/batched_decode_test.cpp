#include "solvers/problem/batched_decode.hpp"

#include <gtest/gtest.h>

#include "lib/models/model_catalog.hpp"
#include "lib/models/step_reads.hpp"

namespace meshplan::batched_decode_test {
namespace {

// One host holding all 32 layers of Llama 3.1 8B as one rank, 1 ms a layer per token, its layers
// over `groups` groups of GPUs (the figures are one group's, as the planner gives them).
Plan one_host(const ModelDesc& m, int groups, double kv_bytes) {
  Plan p;
  p.strategy = "pipeline";
  p.activation_bytes = 2 * static_cast<double>(m.hidden_size);
  RankPlan r;
  r.host = "box";
  r.layer_start = 0;
  r.layer_end = m.num_layers();
  r.holds_head = true;
  r.weight_bytes = static_cast<double>(m.total_bytes());
  r.kv_bytes = kv_bytes;
  r.total_bytes = r.weight_bytes + r.kv_bytes;
  r.usable_bytes = 1e12;
  r.bandwidth = 1e12;
  r.flops = 1e15;
  r.stage_s = 32e-3;
  const int per = m.num_layers() / groups;
  for (int g = 0; g < groups; ++g) {
    RankPlan::GpuStage s;
    s.devices = {"box/gpu" + std::to_string(g)};
    s.layer_start = g * per;
    s.layer_end = (g + 1) * per;
    r.gpu_stages.push_back(s);
  }
  r.tp = 8 / groups;
  p.ranks.push_back(r);
  p.predicted.token_latency_s = r.stage_s;
  return p;
}

TEST(batched_decode_test, groups_of_gpus_in_a_host_each_take_a_micro_batch) {
  const ModelDesc m = ModelCatalog::builtin().resolve("llama-3.1-8b", "bf16");
  // Unstaged, the same figures would pass every stream through the groups one after another.
  const BatchedDecode one(one_host(m, 1, 1e6), m), four(one_host(m, 4, 1e6), m);
  EXPECT_NEAR(four.at(1).round_s, one.at(1).round_s, 1e-12);  // one stream: the same time
  // Weights dominate: each group re-reads its weights per micro-batch, with its own bandwidth.
  EXPECT_NEAR(four.at(8).aggregate_tokens_per_s, one.at(8).aggregate_tokens_per_s,
              0.01 * one.at(8).aggregate_tokens_per_s);
  // Each stream's KV weighs: the groups work on their micro-batches at once and gain.
  const BatchedDecode one_kv(one_host(m, 1, 5e8), m), four_kv(one_host(m, 4, 5e8), m);
  EXPECT_GT(four_kv.at(8).aggregate_tokens_per_s, 1.05 * one_kv.at(8).aggregate_tokens_per_s);
  EXPECT_LT(four_kv.at(8).aggregate_tokens_per_s, 4 * one_kv.at(8).aggregate_tokens_per_s);
}

// A mixture of experts: a step of n streams reads the union of their experts. With the weights
// dominating (no KV, FLOPs to spare) the step time grows by exactly the extra experts' bytes.
TEST(batched_decode_test, streams_of_a_mixture_of_experts_read_the_union_of_their_experts) {
  const ModelDesc m = ModelCatalog::builtin().resolve("qwen3-30b-a3b-4bit", "");
  Plan p = one_host(m, 1, 0);
  p.ranks[0].gpu_stages.clear();
  p.ranks[0].tp = 1;
  p.ranks[0].holds_head = false;
  p.ranks[0].stage_s = 0;
  double one = 0, four = 0;
  for (const LayerInfo& l : m.layers) {
    one += step_read_bytes(l, 1);
    four += step_read_bytes(l, 4);
  }
  p.predicted.token_latency_s = one / p.ranks[0].bandwidth;
  const BatchedDecode b(p, m);
  EXPECT_NEAR(b.at(1).round_s, one / 1e12, 1e-12);
  EXPECT_NEAR(b.at(4).round_s, four / 1e12, 1e-9 * four / 1e12);
  // About 29 of 128 experts for four streams: well above one stream's reads, below four times.
  EXPECT_GT(four, 2 * one);
  EXPECT_LT(four, 4 * one);
}

}  // namespace
}  // namespace meshplan::batched_decode_test
