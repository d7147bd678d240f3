// vLLM's rules through the real binary on nodes of unequal GPU counts: a layout vLLM would refuse
// is never chosen or written, and what is written is what vLLM loads (-tp, -pp, the layer
// partition, Ray where its multiprocessing launch cannot start the nodes).
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "tests/test_support.hpp"

namespace meshplan::vllm_rules_cli_test {
namespace {

using nlohmann::json;
using testing::read_text;
using testing::run_meshplan;
using testing::temp_dir;

const std::string kNodes = "tests/fixtures/engines/h100_8_and_4_ib.yaml";

// Llama 405B bf16 over 8 + 4 H100s: stages of 4 GPUs (-tp 4 -pp 3), placed by Ray.
TEST(vllm_rules_cli_test, unequal_nodes_run_stages_of_one_degree_on_ray) {
  const std::string dir = temp_dir();
  const std::string plan = dir + "/plan.json";
  auto r = run_meshplan(
      {"plan", "-c", kNodes, "-m", "llama-3.1-405b-bf16", "--engine", "vllm", "-o", plan});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("vLLM runs it as planned"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("vLLM runs no layout"), std::string::npos) << r.out;
  const json p = json::parse(read_text(plan));
  EXPECT_EQ(p["engine"], "vllm");
  EXPECT_EQ(p["model"]["attention_heads"], 128);
  int stages = 0;
  for (const json& rank : p["ranks"])
    for (const json& g : rank["gpu_stages"]) {
      EXPECT_EQ(g["devices"].size(), 4u) << g;
      ++stages;
    }
  EXPECT_EQ(stages, 3);

  r = run_meshplan({"emit", "all", "-c", kNodes, "--plan", plan, "-o", dir + "/launch"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string vllm = read_text(dir + "/launch/vllm.sh");
  EXPECT_NE(vllm.find("vllm serve MODEL -tp 4 -pp 3 --distributed-executor-backend ray"),
            std::string::npos)
      << vllm;
  EXPECT_EQ(vllm.find("--nnodes 2"), std::string::npos) << vllm;  // 8 and 4 GPUs: not equal
  EXPECT_NE(vllm.find("VLLM_PP_LAYER_PARTITION=42,42,42"), std::string::npos) << vllm;
  EXPECT_NE(vllm.find("ray start --head"), std::string::npos) << vllm;
  EXPECT_NE(vllm.find("ray start --address=10.9.0.1:6379 --node-ip-address=10.9.0.2"),
            std::string::npos)
      << vllm;
  EXPECT_NE(vllm.find("VLLM_HOST_IP=10.9.0.2"), std::string::npos) << vllm;
  std::filesystem::remove_all(dir);
}

// DeepSeek V3.1 FP8 over the same nodes: 12 GPUs do not divide 128 heads, so the expert plan (one
// tensor-parallel group over every GPU) is not chosen for vLLM and says why.
TEST(vllm_rules_cli_test, an_expert_plan_vllm_would_refuse_is_not_chosen) {
  const std::string dir = temp_dir();
  auto r = run_meshplan({"plan", "-c", kNodes, "-m", "deepseek-v3.1-fp8", "--engine", "vllm", "-o",
                         dir + "/plan.json"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  // vLLM brings its own transport (NCCL): the headline names the engine, not an MLX backend.
  EXPECT_NE(r.out.find("as a pipeline over 2 hosts, engine vllm, context"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("vLLM does not run it (vLLM splits the 128 attention heads over 12 GPUs "
                       "only when 12 divides them)"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("vLLM runs it as planned"), std::string::npos) << r.out;

  // Asked for the expert layout, vLLM runs none that fits, and nothing is written for it.
  r = run_meshplan({"plan", "-c", kNodes, "-m", "deepseek-v3.1-fp8", "--engine", "vllm",
                    "--strategy", "expert"});
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_NE(r.err.find("12 GPUs only when 12 divides them"), std::string::npos) << r.err;
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace meshplan::vllm_rules_cli_test
