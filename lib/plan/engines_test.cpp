// The engine table against what each engine's sources say it loads, and the verdicts a plan gets
// on Macs, NVIDIA hosts and a mix.
#include "lib/plan/engines.hpp"

#include <gtest/gtest.h>

#include "lib/models/model_catalog.hpp"
#include "solvers/strategy_planner.hpp"
#include "tests/plan_fixtures.hpp"

namespace meshplan {
namespace {

TEST(engines_test, the_table_states_each_engines_layouts) {
  const Engine* mlx = find_engine("mlx-lm");
  ASSERT_NE(mlx, nullptr);
  EXPECT_EQ(mlx->pipeline, PipelineSplit::kEvenReversed);  // pipeline.py takes no split
  EXPECT_FALSE(mlx->hybrid);                               // no group per stage (mlx#3205)
  const Engine* llama = find_engine("llama-rpc");
  ASSERT_NE(llama, nullptr);
  EXPECT_EQ(llama->pipeline, PipelineSplit::kExplicit);  // --tensor-split per device
  EXPECT_FALSE(llama->tensor);                           // row split only inside one host
  const Engine* vllm = find_engine("vllm");
  ASSERT_NE(vllm, nullptr);
  EXPECT_FALSE(vllm->macs);
  EXPECT_TRUE(vllm->hybrid && vllm->expert && vllm->replicas && vllm->disaggregated);
  EXPECT_EQ(find_engine("ollama"), nullptr);
}

Plan plan_for(const Cluster& c, const std::string& model, const std::string& strategy) {
  PlanRequest r;
  r.strategy = strategy;
  return plan_model(c, Catalog::builtin(), ModelCatalog::builtin().resolve(model, ""), r,
                    SteadyClock());
}

TEST(engines_test, verdicts_say_who_runs_the_plan_as_planned) {
  Cluster macs = testing::load_example("mac-studio-m3-ultra-x4.yaml");
  auto tensor =
      engine_verdicts(plan_for(macs, "llama-3.3-70b-4bit", "tensor"), macs, Catalog::builtin());
  ASSERT_EQ(tensor.size(), engines().size());
  EXPECT_EQ(tensor[0], "mlx-lm through mlx.launch runs it as planned");
  EXPECT_EQ(tensor[2], "llama.cpp RPC cannot (no tensor parallel across hosts)");
  EXPECT_EQ(tensor[3], "vLLM cannot (m3-ultra-1 is a Mac)");
  // Kimi K2 needs two of the Studios: the optimal split is the planned one, not mlx-lm's.
  auto pipeline =
      engine_verdicts(plan_for(macs, "kimi-k2-4bit", "pipeline"), macs, Catalog::builtin());
  EXPECT_EQ(pipeline[0],
            "mlx-lm through mlx.launch runs a pipeline with its own equal split (rank 0 the last "
            "layers)");
  EXPECT_EQ(pipeline[2], "llama.cpp RPC runs it as planned");
  EXPECT_NE(render_engine_verdicts(plan_for(macs, "kimi-k2-4bit", "pipeline"), macs,
                                   Catalog::builtin())
                .find("\nEngines: mlx-lm through mlx.launch runs a pipeline"),
            std::string::npos);
}

TEST(engines_test, hosts_are_macs_nvidia_or_cpus) {
  Host mac;
  mac.os.kind = "macos";
  EXPECT_EQ(host_platform(mac, Catalog::builtin()), Platform::kMac);
  Host hgx;
  hgx.os.kind = "linux";
  hgx.gpus.resize(8);
  EXPECT_EQ(host_platform(hgx, Catalog::builtin()), Platform::kNvidia);
  Host spark;
  spark.os.kind = "linux";
  spark.chip = "gb10";  // unified memory, no discrete GPU listed
  EXPECT_EQ(host_platform(spark, Catalog::builtin()), Platform::kNvidia);
  Host server;
  server.os.kind = "linux";
  EXPECT_EQ(host_platform(server, Catalog::builtin()), Platform::kCpu);
  Host studio;  // a hand-written file without os: the chip says Mac
  studio.chip = "m3-ultra-80c";
  EXPECT_EQ(host_platform(studio, Catalog::builtin()), Platform::kMac);
}

}  // namespace
}  // namespace meshplan
