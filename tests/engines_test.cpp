// The engine table against what each engine's sources say it loads, and the verdicts a plan gets
// on Macs, NVIDIA hosts and a mix.
#include "lib/plan/engines.hpp"

#include <gtest/gtest.h>

#include <map>

#include "lib/models/model_catalog.hpp"
#include "solvers/strategy/strategy_planner.hpp"
#include "tests/plan_fixtures.hpp"

namespace meshplan::engines_test {
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
  EXPECT_NE(
      render_engine_verdicts(plan_for(macs, "kimi-k2-4bit", "pipeline"), macs, Catalog::builtin())
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

TEST(engines_test, a_launch_without_a_named_engine_takes_the_one_its_hosts_run) {
  Cluster c;
  auto add = [&](const std::string& name, const std::string& os, int gpus) {
    Host h;
    h.name = name;
    h.os.kind = os;
    h.gpus.resize(static_cast<size_t>(gpus));
    c.hosts.push_back(h);
  };
  add("mac-1", "macos", 0);
  add("mac-2", "macos", 0);
  add("gpu-1", "linux", 8);
  add("gpu-2", "linux", 1);
  add("cpu-1", "linux", 0);
  const Catalog& cat = Catalog::builtin();
  EXPECT_EQ(default_engine(c, cat, {"mac-1", "mac-2"}), "mlx-lm");
  EXPECT_EQ(default_engine(c, cat, {"gpu-1", "gpu-2"}), "vllm");
  EXPECT_EQ(default_engine(c, cat, {"mac-1", "gpu-1"}), "llama-rpc");
  EXPECT_EQ(default_engine(c, cat, {"gpu-1", "cpu-1"}), "llama-rpc");
  EXPECT_EQ(default_engine(c, cat, {"cpu-1"}), "llama-rpc");
  // Each default is an engine of the table that runs on those hosts.
  for (const auto& hosts :
       std::vector<std::vector<std::string>>{{"mac-1"}, {"gpu-2"}, {"mac-2", "cpu-1"}}) {
    const Engine* e = find_engine(default_engine(c, cat, hosts));
    ASSERT_NE(e, nullptr);
    EXPECT_TRUE(runs_on(*e, c, cat, hosts)) << e->name;
  }
}

}  // namespace
}  // namespace meshplan::engines_test

namespace meshplan::engines_test {
namespace {

// vLLM's -tp is one number for every pipeline stage: a hybrid plan of a group of two and a single
// host is not a layout it loads, one of two groups of two is.
TEST(engines_test, vllm_takes_one_tensor_degree_for_every_stage) {
  Plan plan;
  plan.strategy = "hybrid";
  RankPlan a, b, c;
  a.host = "a";
  b.host = "b";
  c.host = "c";
  a.tp_group = b.tp_group = {"a", "b"};
  plan.ranks = {a, b, c};
  const Engine& vllm = *find_engine("vllm");
  EXPECT_EQ(layout_refusal(vllm, plan), "one tensor-parallel degree on every stage only");
  RankPlan d = c;
  d.host = "d";
  c.tp_group = d.tp_group = {"c", "d"};
  plan.ranks = {a, b, c, d};
  EXPECT_EQ(layout_refusal(vllm, plan), "");
  EXPECT_EQ(layout_refusal(*find_engine("mlx-lm"), plan),
            "no tensor-parallel groups as pipeline stages");
}

}  // namespace
}  // namespace meshplan::engines_test

namespace meshplan::engines_test {
namespace {

// The table of docs/engines.md is the table's facts with their sources: a row per engine, titled
// as the table titles it, saying where it runs and citing the source the table cites.
TEST(engines_test, the_docs_table_has_a_row_per_engine_with_its_source) {
  const std::string page = testing::read_text(testing::source_path("docs/engines.md"));
  const size_t table = page.find("| engine | runs on | pipeline |");
  ASSERT_NE(table, std::string::npos);
  const std::string rows = page.substr(table, page.find("\n\n", table) - table);
  for (const Engine& e : engines()) {
    const std::string title(e.title.substr(0, e.title.find(" through")));
    const size_t row = rows.find("\n| " + title);
    ASSERT_NE(row, std::string::npos) << title;
    const std::string line = rows.substr(row + 1, rows.find('\n', row + 1) - row - 1);
    EXPECT_EQ(line.find("Macs") != std::string::npos, e.macs) << line;
    EXPECT_EQ(line.find("NVIDIA") != std::string::npos, e.nvidia) << line;
    EXPECT_EQ(line.find("(mixed)") != std::string::npos, e.mixes) << line;
    // The file the engine table cites is cited in the row.
    const std::map<std::string_view, std::string_view> cited = {
        {"mlx-lm", "mlx_lm/models/pipeline.py"},
        {"exo", "src/exo/master/placement"},
        {"llama-rpc", "tools/rpc/README.md"},
        {"vllm", "config/parallel.py"}};
    ASSERT_TRUE(cited.count(e.name)) << e.name << ": a new engine needs its cited source here";
    EXPECT_NE(line.find(cited.at(e.name)), std::string::npos) << line;
    EXPECT_NE(std::string(e.source).find(cited.at(e.name)), std::string::npos) << e.source;
  }
}

}  // namespace
}  // namespace meshplan::engines_test
