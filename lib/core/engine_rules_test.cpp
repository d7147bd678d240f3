#include "lib/core/engine_rules.hpp"

#include <gtest/gtest.h>

namespace meshplan::engine_rules_test {
namespace {

TEST(engine_rules_test, vllm_needs_the_degree_to_divide_the_heads) {
  // Llama 3.1 405B: 128 attention heads, 8 KV heads.
  EXPECT_EQ(vllm_tensor_refusal(8, 128, 8), "");
  EXPECT_EQ(vllm_tensor_refusal(16, 128, 8), "");  // 16 GPUs: each KV head on two of them
  EXPECT_NE(vllm_tensor_refusal(12, 128, 8).find("128 attention heads over 12 GPUs"),
            std::string::npos);
  // 28 heads over 3 GPUs: vLLM's own example of a refusal.
  EXPECT_FALSE(vllm_tensor_fits(3, 28, 4));
  // 6 KV heads over 4 GPUs: neither divides the other.
  EXPECT_NE(vllm_tensor_refusal(4, 48, 6).find("6 KV heads"), std::string::npos);
  EXPECT_TRUE(vllm_tensor_fits(1, 7, 3));
  EXPECT_TRUE(vllm_tensor_fits(4, 0, 0));  // unknown heads pass
}

TEST(engine_rules_test, vllm_splits_experts_evenly_the_first_ranks_one_more) {
  const std::vector<int> twelve = vllm_experts_per_rank(256, 12);
  ASSERT_EQ(twelve.size(), 12u);
  EXPECT_EQ(twelve.front(), 22);  // 256 = 12 x 21 + 4: ranks 0-3 hold 22
  EXPECT_EQ(twelve[3], 22);
  EXPECT_EQ(twelve[4], 21);
  int sum = 0;
  for (int n : twelve)
    sum += n;
  EXPECT_EQ(sum, 256);
  EXPECT_EQ(vllm_experts_per_rank(128, 8), std::vector<int>(8, 16));
  EXPECT_TRUE(vllm_experts_per_rank(8, 0).empty());
}

TEST(engine_rules_test, a_layer_partition_covers_every_layer_once) {
  EXPECT_EQ(vllm_partition_refusal({42, 42, 42}, 126, 3), "");
  EXPECT_NE(vllm_partition_refusal({42, 42}, 126, 3).find("2 entries for 3"), std::string::npos);
  EXPECT_NE(vllm_partition_refusal({42, 42, 41}, 126, 3).find("sums to 125"), std::string::npos);
  EXPECT_NE(vllm_partition_refusal({126, 0}, 126, 2).find("no layer"), std::string::npos);
}

TEST(engine_rules_test, the_multiprocessing_launch_needs_equal_nodes) {
  EXPECT_TRUE(vllm_multiprocessing_fits({8, 8}));
  EXPECT_TRUE(vllm_multiprocessing_fits({1}));
  EXPECT_FALSE(vllm_multiprocessing_fits({8, 4}));
}

TEST(engine_rules_test, llama_cpp_counts_the_output_layer_on_the_main_host) {
  // Two rpc-servers of 30 and 20 layers, the main host's 30: its entry holds the output layer too.
  EXPECT_EQ(llama_tensor_split({30, 20, 30}), (std::vector<int>{30, 20, 31}));
  EXPECT_EQ(llama_gpu_layers(80), 81);
  EXPECT_TRUE(llama_tensor_split({}).empty());
}

TEST(engine_rules_test, mlx_lm_and_exo_divide_by_their_ranks) {
  EXPECT_EQ(mlx_lm_tensor_refusal(4, 64, 8), "");
  EXPECT_NE(mlx_lm_tensor_refusal(3, 64, 8).find("64 attention heads"), std::string::npos);
  EXPECT_NE(mlx_lm_tensor_refusal(16, 64, 8).find("8 KV heads"), std::string::npos);
  EXPECT_EQ(exo_tensor_refusal(2, 8192, 8), "");
  EXPECT_NE(exo_tensor_refusal(3, 8192, 8).find("hidden size of 8192"), std::string::npos);
  EXPECT_EQ(launcher_slots(8), 8);
  EXPECT_EQ(launcher_slots(0), 1);
}

}  // namespace
}  // namespace meshplan::engine_rules_test
