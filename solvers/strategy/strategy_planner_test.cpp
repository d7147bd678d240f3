#include "solvers/strategy/strategy_planner.hpp"

#include <gtest/gtest.h>

#include "lib/cluster/cluster_loader.hpp"
#include "lib/core/error.hpp"
#include "lib/models/model_catalog.hpp"
#include "tests/plan_fixtures.hpp"
#include "tests/test_support.hpp"

namespace meshplan::strategy_planner_test {
namespace {

Cluster example(const std::string& name = "mac-studio-m3-ultra-x4.yaml") {
  return testing::load_example(name);
}

ModelDesc model(const std::string& name) {
  return ModelCatalog::builtin().resolve(name, "");
}

Error error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e;
  }
  return Error(ErrorKind::kInternal, "no error");
}

const Alternative* find(const Plan& plan, const std::string& strategy) {
  for (const auto& a : plan.alternatives)
    if (a.strategy == strategy) return &a;
  return nullptr;
}

TEST(strategy_planner_test, auto_returns_the_fastest_and_lists_the_others) {
  PlanRequest r;
  r.strategy = "auto";
  Plan plan =
      plan_model(example(), Catalog::builtin(), model("qwen3-235b-a22b-8bit"), r, SteadyClock());
  ASSERT_EQ(plan.alternatives.size(), 3u);
  for (const auto& a : plan.alternatives) {
    EXPECT_NE(a.strategy, plan.strategy);
    if (a.strategy == "hybrid") {
      // One group of all four Macs is not a pipeline of groups: it is the tensor plan, planned
      // and launched as one, so the hybrid strategy names it instead of repeating it.
      EXPECT_FALSE(a.feasible);
      EXPECT_NE(a.reason.find("the tensor plan"), std::string::npos) << a.reason;
      continue;
    }
    ASSERT_TRUE(a.feasible) << a.strategy << ": " << a.reason;
    EXPECT_FALSE(a.hosts.empty());
    EXPECT_LT(a.decode_tokens_per_s, plan.predicted.decode_tokens_per_s) << a.strategy;
    EXPECT_NE(a.reason.find("slower than the " + plan.strategy + " plan"), std::string::npos)
        << a.reason;
  }
  // Each strategy asked for alone gives the figure listed for it.
  for (const auto& a : plan.alternatives) {
    if (!a.feasible) continue;
    PlanRequest alone = r;
    alone.strategy = a.strategy;
    Plan p = plan_model(example(), Catalog::builtin(), model("qwen3-235b-a22b-8bit"), alone,
                        SteadyClock());
    EXPECT_DOUBLE_EQ(p.predicted.decode_tokens_per_s, a.decode_tokens_per_s) << a.strategy;
  }
  // The baseline is the memory-proportional pipeline on the plan's hosts.
  ASSERT_FALSE(plan.baselines.empty());
  EXPECT_EQ(plan.baselines[0].solver, "proportional");
  std::vector<std::string> hosts;
  for (const auto& rank : plan.ranks)
    hosts.push_back(rank.host);
  EXPECT_EQ(plan.baselines[0].hosts, hosts);
  EXPECT_NEAR(plan.baselines[0].speedup,
              plan.predicted.decode_tokens_per_s / plan.baselines[0].decode_tokens_per_s, 1e-12);
}

TEST(strategy_planner_test, auto_says_why_a_strategy_is_not_possible) {
  PlanRequest r;
  r.strategy = "auto";
  Plan dense =
      plan_model(example(), Catalog::builtin(), model("llama-3.3-70b-4bit"), r, SteadyClock());
  const Alternative* expert = find(dense, "expert");
  ASSERT_NE(expert, nullptr);
  EXPECT_FALSE(expert->feasible);
  EXPECT_NE(expert->reason.find("not an MoE model"), std::string::npos) << expert->reason;

  r.pins.push_back(LayerPin{"m3-ultra-1", 0, 40});
  Plan pinned =
      plan_model(example(), Catalog::builtin(), model("llama-3.3-70b-4bit"), r, SteadyClock());
  EXPECT_EQ(pinned.strategy, "pipeline");
  ASSERT_NE(find(pinned, "tensor"), nullptr);
  EXPECT_NE(find(pinned, "tensor")->reason.find("--pin"), std::string::npos);
}

TEST(strategy_planner_test, nothing_fits_names_every_strategy) {
  PlanRequest r;
  r.strategy = "auto";
  Error e = error_of([&] {
    plan_model(example("mac-mini-m4-pro-x4.yaml"), Catalog::builtin(), model("deepseek-v3.1-4bit"),
               r, SteadyClock());
  });
  EXPECT_EQ(e.kind(), ErrorKind::kFailed);
  std::string why = e.what();
  EXPECT_NE(why.find("does not fit with any strategy"), std::string::npos) << why;
  EXPECT_NE(why.find("pipeline: "), std::string::npos) << why;
  EXPECT_NE(why.find("tensor: not enough memory"), std::string::npos) << why;
  EXPECT_NE(why.find("expert: not enough memory"), std::string::npos) << why;
}

TEST(strategy_planner_test, bad_requests_are_input_errors) {
  PlanRequest r;
  r.strategy = "data";
  EXPECT_EQ(error_of([&] {
              plan_model(example(), Catalog::builtin(), model("llama-3.3-70b-4bit"), r,
                         SteadyClock());
            }).kind(),
            ErrorKind::kBadInput);
  r.strategy = "tensor";
  r.solver = "ilp";
  Error e = error_of([&] {
    plan_model(example(), Catalog::builtin(), model("llama-3.3-70b-4bit"), r, SteadyClock());
  });
  EXPECT_EQ(e.kind(), ErrorKind::kBadInput);
  EXPECT_NE(std::string(e.what()).find("--solver ilp places experts"), std::string::npos);
  r.strategy = "pipeline";
  r.solver = "proportional";
  r.min_hosts = 9;
  e = error_of([&] {
    plan_model(example(), Catalog::builtin(), model("llama-3.3-70b-4bit"), r, SteadyClock());
  });
  EXPECT_EQ(e.kind(), ErrorKind::kBadInput);
  EXPECT_NE(std::string(e.what()).find("--min-hosts 9"), std::string::npos) << e.what();
}

// llama.cpp RPC (ggml-org/llama.cpp ggml/src/ggml-rpc/ggml-rpc.cpp, src/llama-model.cpp
// load_tensors): llama-server's host is the last device and holds the output layer and the
// embeddings, and every tensor between stages goes through it, so it needs a cable to each stage
// but the stages need no ring.
PlanRequest llama_rpc(int min_hosts) {
  PlanRequest r;
  r.engine = "llama-rpc";
  r.backend = "ring";  // Thunderbolt cables only
  r.min_hosts = min_hosts;
  return r;
}

TEST(strategy_planner_test, llama_rpc_runs_a_star_from_its_hub) {
  Plan p = plan_model(example("thunderbolt4-star-3.yaml"), Catalog::builtin(),
                      model("llama-3.1-8b"), llama_rpc(3), SteadyClock());
  ASSERT_EQ(p.ranks.size(), 3u);
  EXPECT_EQ(p.ranks[2].host, "mini-hub");
  EXPECT_TRUE(p.ranks[2].holds_head);
  EXPECT_FALSE(p.ranks[0].holds_head || p.ranks[1].holds_head);
  ASSERT_TRUE(p.ranks[0].hop_to_next);
  EXPECT_EQ(p.ranks[0].hop_to_next->kind, "tb4 via mini-hub");
  // Remote stage -> main host and main host -> remote stage: one leg each.
  EXPECT_EQ(p.ranks[1].hop_to_next->kind, "tb4");
  EXPECT_GT(p.ranks[1].hop_to_next->latency_s, p.ranks[2].hop_to_next->latency_s + 3.9e-3);
}

TEST(strategy_planner_test, llama_rpc_names_the_link_no_main_host_has) {
  const Cluster ring = load_cluster(R"(hosts:
  - {name: a, chip: m4-pro-20c, memory: 64GiB}
  - {name: b, chip: m4-pro-20c, memory: 64GiB}
  - {name: c, chip: m4-pro-20c, memory: 64GiB}
  - {name: d, chip: m4-pro-20c, memory: 64GiB}
links:
  - {topology: ring, kind: tb5, hosts: all}
)",
                                    "ring4.yaml", Catalog::builtin());
  Error e = error_of([&] {
    plan_model(ring, Catalog::builtin(), model("llama-3.1-8b"), llama_rpc(4), SteadyClock());
  });
  EXPECT_EQ(e.kind(), ErrorKind::kFailed) << e.what();
  EXPECT_NE(std::string(e.what()).find("a has no link to c"), std::string::npos) << e.what();
  // Three of them: the middle one of the three runs llama-server.
  Plan p = plan_model(ring, Catalog::builtin(), model("llama-3.1-8b"), llama_rpc(3), SteadyClock());
  ASSERT_EQ(p.ranks.size(), 3u);
  EXPECT_TRUE(p.ranks[2].holds_head);
}

}  // namespace
}  // namespace meshplan::strategy_planner_test
