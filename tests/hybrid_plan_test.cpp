// Hybrid plans: groups of hosts tensor-parallel inside, a pipeline between them. Checked against
// the tensor-parallel planner (a different cost model's code) where a group is every host, by
// hand for the all-reduces, and for the memory each host holds.
#include "solvers/parallel/hybrid_plan.hpp"

#include <gtest/gtest.h>

#include <set>

#include "lib/cluster/cluster_loader.hpp"
#include "lib/core/error.hpp"
#include "lib/models/model_catalog.hpp"
#include "solvers/problem/batched_decode.hpp"
#include "solvers/strategy/strategy_planner.hpp"
#include "tests/plan_fixtures.hpp"
#include "tests/test_support.hpp"

namespace meshplan::hybrid_plan_test {
namespace {

ModelDesc model(const std::string& name) {
  return ModelCatalog::builtin().resolve(name, "");
}

// Two Mac Studios (M3 Ultra, 96 GiB) and two Mac minis (M4 Pro, 64 GiB), a TB5 RDMA cable
// between every pair. Llama 3.1 405B 4-bit (212.6 GiB) needs all four: an equal tensor split
// overflows a mini, a pipeline runs every layer at one Mac's pace.
constexpr const char* kStudiosAndMinis = R"(schema: meshplan.cluster/1
name: studios-and-minis
hosts:
  - {name: studio-1, chip: m3-ultra-60c, memory: 96GiB, os: {kind: macos, version: "26.2"}}
  - {name: studio-2, chip: m3-ultra-60c, memory: 96GiB, os: {kind: macos, version: "26.2"}}
  - {name: mini-1, chip: m4-pro-20c, memory: 64GiB, os: {kind: macos, version: "26.2"}}
  - {name: mini-2, chip: m4-pro-20c, memory: 64GiB, os: {kind: macos, version: "26.2"}}
links:
  - {topology: full-mesh, kind: tb5, rdma: true, hosts: all}
)";

Cluster studios_and_minis() {
  return load_cluster(kStudiosAndMinis, "studios-and-minis.yaml", Catalog::builtin());
}

Plan plan_with(const Cluster& c, const std::string& m, const std::string& strategy,
               const std::vector<std::string>& hosts = {}) {
  PlanRequest r;
  r.strategy = strategy;
  r.hosts = hosts;
  return plan_model(c, Catalog::builtin(), model(m), r, SteadyClock());
}

// A "pipeline of tensor-parallel groups" with one group and no other stage is the tensor plan:
// the hybrid strategy refuses it and names the tensor plan, so `auto` chooses (and `emit` runs) a
// tensor plan. Four M3 Ultras in a TB5 RDMA mesh, the README's first command among them.
TEST(hybrid_plan_test, one_group_of_every_host_is_the_tensor_plan) {
  Cluster c = testing::load_example("mac-studio-m3-ultra-x4.yaml");
  for (const char* m : {"llama-3.3-70b-bf16", "llama-3.1-8b-bf16", "deepseek-v3.1-4bit"}) {
    try {
      plan_with(c, m, "hybrid");
      ADD_FAILURE() << m << ": a hybrid plan of one group";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::kFailed);
      EXPECT_NE(std::string(e.what()).find("the tensor plan"), std::string::npos) << e.what();
    }
  }
  Plan chosen = plan_with(c, "deepseek-v3.1-4bit", "auto");
  EXPECT_EQ(chosen.strategy, "tensor");
  EXPECT_EQ(chosen.ranks.size(), 4u);
  for (const RankPlan& r : chosen.ranks)
    EXPECT_TRUE(r.tp_group.empty()) << r.host;
}

TEST(hybrid_plan_test, studios_and_minis_run_as_two_groups_of_two) {
  Cluster c = studios_and_minis();
  Plan p = plan_with(c, "llama-3.1-405b-4bit", "auto");
  ASSERT_EQ(p.strategy, "hybrid");
  ASSERT_EQ(p.ranks.size(), 4u);
  // Each group's hosts hold the same layers; the groups' layers follow one another.
  std::set<std::vector<std::string>> groups;
  int next = 0;
  for (size_t i = 0; i < 4; i += 2) {
    const RankPlan& a = p.ranks[i];
    const RankPlan& b = p.ranks[i + 1];
    ASSERT_EQ(a.tp_group.size(), 2u);
    EXPECT_EQ(a.tp_group, b.tp_group);
    EXPECT_EQ(a.layer_start, next);
    EXPECT_EQ(b.layer_start, a.layer_start);
    EXPECT_EQ(b.layer_end, a.layer_end);
    next = a.layer_end;
    groups.insert({std::min(a.host, b.host), std::max(a.host, b.host)});
    EXPECT_DOUBLE_EQ(*a.share, 0.5);
    // The group's two all-reduces per layer over its JACCL mesh, by hand: each one exchange with
    // the peer, lambda + 14 us for every 8 KiB of a token's activations (2h bytes) + 2 x 2h/2
    // bytes / beta, tb5-rdma at 50 us and 6.5 GB/s (the catalog's figures), h = 16384.
    const double h = 16384;
    EXPECT_NEAR(a.gpu_collective_s, 2 * (50e-6 + 14e-6 * 2 * h / 8192 + 2 * 2.0 * h / 2 / 6.5e9),
                1e-9);
  }
  EXPECT_EQ(next, 126);
  EXPECT_EQ(groups,
            (std::set<std::vector<std::string>>{{"studio-1", "studio-2"}, {"mini-1", "mini-2"}}));
  for (const RankPlan& r : p.ranks) {
    EXPECT_LE(r.total_bytes, r.usable_bytes) << r.host;
    EXPECT_EQ(r.holds_head, r.layer_start == 0) << r.host;
  }
  // Exact over every grouping, and faster than either pure strategy (an equal tensor split of
  // all four overflows a mini).
  EXPECT_TRUE(p.solver.optimal);
  ASSERT_TRUE(p.bound);
  EXPECT_LE(p.bound->token_latency_s, p.predicted.token_latency_s);
  bool pipeline = false, tensor = false;
  for (const Alternative& a : p.alternatives) {
    if (a.strategy == "pipeline") {
      pipeline = true;
      EXPECT_LT(a.decode_tokens_per_s * 1.5, p.predicted.decode_tokens_per_s);
    }
    if (a.strategy == "tensor") {
      tensor = true;
      EXPECT_FALSE(a.feasible);
      EXPECT_NE(a.reason.find("mini"), std::string::npos) << a.reason;
    }
  }
  EXPECT_TRUE(pipeline && tensor);
  // One stream decodes at exactly the plan's prediction in the serving figures too.
  BatchedDecode batched(p, model("llama-3.1-405b-4bit"));
  EXPECT_NEAR(batched.at(1).round_s, p.predicted.token_latency_s, 1e-12);
  EXPECT_GT(batched.at(2).aggregate_tokens_per_s, 1.5 * batched.at(1).aggregate_tokens_per_s);
}

TEST(hybrid_plan_test, a_group_of_two_alone_is_left_to_the_tensor_plan_on_those_two) {
  // Llama 3.3 70B 4-bit fits on the two studios: grouping them is the tensor plan over the pair.
  Cluster c = studios_and_minis();
  Plan tensor = plan_with(c, "llama-3.3-70b-4bit", "tensor", {"studio-1", "studio-2"});
  EXPECT_EQ(tensor.ranks.size(), 2u);
  EXPECT_THROW(plan_with(c, "llama-3.3-70b-4bit", "hybrid", {"studio-1", "studio-2"}), Error);
}

TEST(hybrid_plan_test, says_why_no_grouping_applies) {
  Cluster c = studios_and_minis();
  PlanRequest r;
  r.strategy = "hybrid";
  r.max_hosts = 2;
  try {
    plan_model(c, Catalog::builtin(), model("llama-3.3-70b-4bit"), r, SteadyClock());
    FAIL() << "--max-hosts was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kFailed);
    EXPECT_NE(std::string(e.what()).find("--min-hosts or --max-hosts"), std::string::npos)
        << e.what();
  }
  // Macs on Ethernet only: no RDMA mesh under JACCL, so no group.
  r = PlanRequest();
  r.strategy = "hybrid";
  r.backend = "jaccl";
  Cluster eth = testing::load_example("ethernet-5-node.yaml");
  try {
    plan_model(eth, Catalog::builtin(), model("llama-3.3-70b-4bit"), r, SteadyClock());
    FAIL() << "a hybrid plan without any group";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("no group of hosts can split"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace meshplan::hybrid_plan_test
