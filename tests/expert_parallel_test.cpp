#include "solvers/parallel/expert_parallel.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <set>

#include "bench/fleet_families.hpp"
#include "lib/cluster/cluster_loader.hpp"
#include "lib/core/error.hpp"
#include "lib/models/model_catalog.hpp"
#include "solvers/strategy/strategy_planner.hpp"
#include "tests/plan_fixtures.hpp"
#include "tests/test_support.hpp"

namespace meshplan::expert_parallel_test {
namespace {

using testing::failure_of;

PlanInputs equal_pair() {
  return testing::rdma_pair(1e11);
}
Cluster example(const std::string& name = "mac-studio-m3-ultra-x4.yaml") {
  return testing::load_example(name);
}

// A dense layer 0 and one MoE layer 1 with four experts of 10 MB, two per token.
ModelDesc tiny_moe(int experts = 4, int moe_layers = 1) {
  ModelDesc m = testing::tiny_model();
  m.name = "tiny-moe";
  m.layers.resize(1);
  for (int i = 1; i <= moe_layers; ++i) {
    LayerInfo l;
    l.index = i;
    MoeLayerInfo moe;
    moe.experts = experts;
    moe.experts_per_token = 2;
    moe.expert_bytes = 10'000'000;
    moe.non_expert_bytes = 20'000'000;
    moe.expert_flops = 2e7;
    l.moe = moe;
    l.weight_bytes = moe.non_expert_bytes + static_cast<uint64_t>(experts) * moe.expert_bytes;
    l.read_bytes = moe.non_expert_bytes + 2 * moe.expert_bytes;
    l.flops = 4e7 + 2 * moe.expert_flops;
    l.kv_bytes_per_token = 1000;
    m.layers.push_back(l);
  }
  return m;
}

TEST(expert_parallel_test, token_time_and_memory_by_hand) {
  ModelDesc m = tiny_moe();
  PlanInputs in = equal_pair();
  PlanRequest r;
  r.context = 1000;
  r.prompt = 100;
  ExpertCostModel cost(m, in, r);
  // Every rank: the dense layer, the MoE layer's non-expert part, embedding and LM head, all KV.
  EXPECT_DOUBLE_EQ(cost.replicated_bytes(), 1e8 + 2e7 + 3e6 + 2 * 1000 * 1000);
  EXPECT_EQ(cost.capacity(0), static_cast<long>((1e9 - cost.replicated_bytes()) / 1e7));
  CollectivePaths paths(in, "auto");
  const CollectivePath path = paths.options({0, 1}).front();
  ASSERT_EQ(cost.num_instances(), 1u);
  auto placed = place_experts(cost.instance(path.order, 0));
  ASSERT_TRUE(placed);
  EXPECT_EQ(placed->experts, (std::vector<std::vector<int>>{{0, 1}, {2, 3}}));
  auto e = cost.evaluate(path, {*placed});
  // Dense layer replicated: (1e8 + 1e6 KV) / 1e11. MoE layer: non-expert (2e7 + 1e6) / 1e11 plus
  // K = 2 x half the load x one expert's 1e7 / 1e11.
  const double dense = 1.01e-3, moe = 2.1e-4 + 2 * 0.5 * 1e-4;
  const double exchange = 2 * (50e-6 + 2000 / 6.5e9);
  EXPECT_NEAR(e.layers_s, dense + moe, 1e-15);
  EXPECT_NEAR(e.collective_s, exchange, 1e-15);
  EXPECT_NEAR(e.token_latency_s, dense + moe + exchange + 2e-5 + 0.5e-3, 1e-15);
  EXPECT_DOUBLE_EQ(e.memory_bytes[0], cost.replicated_bytes() + 2 * 1e7);
  EXPECT_LE(cost.lower_bound(path), e.token_latency_s * (1 + 1e-12));
}

TEST(expert_parallel_test, deepseek_on_four_m3_ultra_holds_every_expert_in_every_moe_layer) {
  ModelDesc m = ModelCatalog::builtin().resolve("deepseek-v3.1-4bit", "");
  PlanRequest r;
  r.strategy = "expert";
  r.min_hosts = 4;
  Plan plan = plan_model(example(), Catalog::builtin(), m, r, SteadyClock());
  EXPECT_EQ(plan.strategy, "expert");
  ASSERT_EQ(plan.ranks.size(), 4u);
  for (int l = 0; l < m.num_layers(); ++l) {
    std::set<int> held;
    for (const auto& rank : plan.ranks) {
      ASSERT_EQ(rank.experts.size(), 61u);
      held.insert(rank.experts[static_cast<size_t>(l)].begin(),
                  rank.experts[static_cast<size_t>(l)].end());
    }
    EXPECT_EQ(held.size(), l < 3 ? 0u : 256u) << "layer " << l;
  }
  for (const auto& rank : plan.ranks)
    EXPECT_LE(rank.total_bytes, rank.usable_bytes);
  ASSERT_TRUE(plan.bound);
  EXPECT_LE(plan.bound->token_latency_s, plan.predicted.token_latency_s);
  ASSERT_TRUE(plan.collective);
  EXPECT_EQ(plan.collective->layers, 58);
  ASSERT_FALSE(plan.baselines.empty());
  EXPECT_EQ(plan.baselines[0].solver, "proportional");
  EXPECT_EQ(plan.baselines[0].hosts.size(), 4u);
}

TEST(expert_parallel_test, measured_load_copies_the_hot_expert) {
  ModelDesc m = ModelCatalog::builtin().resolve("deepseek-v3.1-4bit", "");
  std::string loads = "[";
  for (int e = 0; e < 256; ++e)
    loads += (e ? ", " : "") + std::string(e == 7 ? "200" : "1");
  loads += "]";
  PlanRequest r;
  r.strategy = "expert";
  r.min_hosts = 4;
  r.expert_load =
      parse_expert_load("layers:\n  - layers: 10-20\n    load: " + loads + "\n", "hot.yaml", m);
  Plan plan = plan_model(example(), Catalog::builtin(), m, r, SteadyClock());
  auto holders = [&](int layer, int expert) {
    int n = 0;
    for (const auto& rank : plan.ranks) {
      const auto& held = rank.experts[static_cast<size_t>(layer)];
      n += std::find(held.begin(), held.end(), expert) != held.end();
    }
    return n;
  };
  EXPECT_GE(holders(15, 7), 2) << "expert 7 takes 44 % of layer 15's tokens";
  EXPECT_EQ(holders(30, 7), 1) << "uniform layers need no copies";
  bool noted = false;
  for (const auto& n : plan.notes)
    noted = noted || n.find("expert load from hot.yaml for 11 of 58") != std::string::npos;
  EXPECT_TRUE(noted);
}

TEST(expert_parallel_test, refusals_name_the_reason) {
  PlanRequest r;
  r.strategy = "expert";
  std::string why = failure_of([&] {
    plan_model(example(), Catalog::builtin(),
               ModelCatalog::builtin().resolve("llama-3.3-70b-4bit", ""), r, SteadyClock());
  });
  EXPECT_NE(why.find("not an MoE model"), std::string::npos) << why;
  why = failure_of([&] {
    plan_model(example("mac-mini-m4-pro-x4.yaml"), Catalog::builtin(),
               ModelCatalog::builtin().resolve("deepseek-v3.1-4bit", ""), r, SteadyClock());
  });
  EXPECT_NE(why.find("not enough memory"), std::string::npos) << why;
  EXPECT_NE(why.find("256 needed"), std::string::npos) << why;
}

TEST(expert_parallel_test, ilp_solver_is_never_worse_than_the_heuristic) {
  // Three unequal hosts, eight experts with a skewed load: GLPK proves the layer's optimum.
  Cluster c = load_cluster(R"(
schema: meshplan.cluster/1
hosts:
  - {name: u, chip: m3-ultra-80c, memory: 256GiB}
  - {name: x, chip: m4-max-40c, memory: 128GiB}
  - {name: p, chip: m4-pro-20c, memory: 64GiB}
links:
  - {kind: 10gbe, hosts: all}
)",
                           "c.yaml", Catalog::builtin());
  ModelDesc m = tiny_moe(8, 3);
  PlanRequest r;
  r.strategy = "expert";
  r.min_hosts = 3;
  r.expert_load = parse_expert_load(
      "layers:\n  - layer: 1\n    load: [40, 20, 10, 9, 8, 6, 4, 3]\n  - layer: 2\n    load: [1, "
      "1, 1, 1, 1, 1, 30, 1]\n",
      "l.yaml", m);
  Plan heuristic = plan_model(c, Catalog::builtin(), m, r, SteadyClock());
  r.solver = "ilp";
  Plan exact = plan_model(c, Catalog::builtin(), m, r, SteadyClock());
  EXPECT_EQ(exact.solver.name, "ilp");
  EXPECT_LE(exact.predicted.token_latency_s, heuristic.predicted.token_latency_s * (1 + 1e-12));
  ASSERT_TRUE(exact.bound && heuristic.bound);
  EXPECT_LE(heuristic.bound->token_latency_s, exact.predicted.token_latency_s * (1 + 1e-12));
  EXPECT_LE(exact.bound->token_latency_s, exact.predicted.token_latency_s * (1 + 1e-12));
}

}  // namespace
}  // namespace meshplan::expert_parallel_test

namespace meshplan::expert_parallel_test {
namespace {

// The floor that stops the search for larger groups on fleets stays under the bound of every
// group of its size, whatever its collective (Thunderbolt RDMA islands, InfiniBand, 10 GbE), and
// rises with the size.
TEST(expert_parallel_test, exchange_floor_stays_under_every_groups_bound) {
  const Catalog& catalog = Catalog::builtin();
  const ModelDesc model = ModelCatalog::builtin().resolve("deepseek-v3.1-4bit", "");
  for (uint64_t seed : {1, 2}) {
    const Cluster cluster = generate_fleet("mixed-6", 40, seed, catalog);
    PlanningProblem problem(cluster, catalog, model, PlanRequest{});
    const PlanInputs& in = problem.inputs();
    ExpertCostModel cost(model, in, problem.request());
    CollectivePaths paths(in, "auto");
    std::mt19937 rng(static_cast<unsigned>(seed));
    int checked = 0;
    double last_floor = 0;
    for (int p = 1; p <= static_cast<int>(in.size()); ++p) {
      EXPECT_GE(cost.exchange_floor(p), last_floor) << p;
      last_floor = cost.exchange_floor(p);
      for (int trial = 0; trial < 4; ++trial) {
        std::vector<size_t> group(in.size());
        std::iota(group.begin(), group.end(), size_t{0});
        std::shuffle(group.begin(), group.end(), rng);
        group.resize(static_cast<size_t>(p));
        std::sort(group.begin(), group.end());
        for (const CollectivePath& path : paths.options(group)) {
          EXPECT_GE(cost.lower_bound(path), cost.exchange_floor(p) * (1 - 1e-12)) << p;
          ++checked;
        }
      }
    }
    EXPECT_GT(checked, 40);
    EXPECT_GT(last_floor, 0);
  }
}

}  // namespace
}  // namespace meshplan::expert_parallel_test
