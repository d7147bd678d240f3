// PlanningProblem::via_main_host, llama.cpp RPC's problem: the main host last and holding the
// embedding and LM head, and every hop a -> b through it (ggml-org/llama.cpp
// ggml/src/ggml-rpc/ggml-rpc.cpp: an rpc-server never sends a tensor to another one; the client
// reads stage a's output and sends it to stage b).
#include "solvers/problem/planning_problem.hpp"

#include <gtest/gtest.h>

#include "lib/cluster/cluster_loader.hpp"
#include "lib/models/model_catalog.hpp"
#include "solvers/problem/pipeline_cost.hpp"
#include "tests/plan_fixtures.hpp"

namespace meshplan::planning_problem_test {
namespace {

constexpr double kRoundTrip = 4e-3;
constexpr double kLocal = 1e-3;  // the main host's own stage

struct Star {
  // mini-hub joined to mbp-m4-max and studio-m2-ultra by Thunderbolt 4; Wi-Fi between all.
  Cluster cluster = testing::load_example("thunderbolt4-star-3.yaml");
  ModelDesc model = ModelCatalog::builtin().resolve("llama-3.1-8b", "");

  PlanningProblem problem(const std::string& backend, std::vector<LayerPin> pins = {}) const {
    PlanRequest r;
    r.backend = backend;
    r.pins = std::move(pins);
    return PlanningProblem(cluster, Catalog::builtin(), model, r);
  }
};

size_t index_of(const PlanningProblem& p, const std::string& host) {
  for (size_t i = 0; i < p.size(); ++i)
    if (p.host(i).name == host) return i;
  ADD_FAILURE() << host << " is not a candidate";
  return 0;
}

double hop_s(const PlanningProblem& p, const std::string& a, const std::string& b) {
  const auto& l = p.backend_links()[index_of(p, a)][index_of(p, b)];
  return l ? l->hop_time(p.inputs().message_bytes) : kInfinity;
}

PlanningProblem via(const PlanningProblem& p, const std::string& main) {
  return p.via_main_host(index_of(p, main), "optimal",
                         [](size_t m, size_t stage) { return m == stage ? kLocal : kRoundTrip; });
}

TEST(planning_problem_test, the_main_host_pays_its_own_stage_once_a_token) {
  Star star;
  PlanningProblem plain = star.problem("auto");
  PlanningProblem p = via(plain, "mini-hub");
  EXPECT_DOUBLE_EQ(p.host(2).overhead_s,
                   plain.host(index_of(plain, "mini-hub")).overhead_s + kLocal);
  EXPECT_DOUBLE_EQ(p.host(0).overhead_s, plain.host(index_of(plain, "mbp-m4-max")).overhead_s);
}

TEST(planning_problem_test, the_main_host_is_the_last_candidate_and_holds_the_head) {
  Star star;
  PlanningProblem plain = star.problem("auto");
  EXPECT_FALSE(plain.head_last());
  EXPECT_FALSE(plain.head_host());
  EXPECT_FALSE(plain.pipeline_cost().head_last());
  PlanningProblem p = via(plain, "mini-hub");
  ASSERT_EQ(p.size(), 3u);
  EXPECT_EQ(p.host(2).name, "mini-hub");
  EXPECT_EQ(p.host(0).name, "mbp-m4-max");  // the others keep their order
  EXPECT_TRUE(p.head_last());
  EXPECT_EQ(p.head_host(), 2u);
  EXPECT_TRUE(p.pipeline_cost().head_last());
  // Derived problems keep the main host and where the head lives.
  PlanningProblem sub = p.subset({2, 0}, "proportional");
  EXPECT_TRUE(sub.head_last());
  EXPECT_EQ(sub.head_host(), 0u);
  EXPECT_EQ(p.for_backend("auto", {}).head_host(), 2u);
}

TEST(planning_problem_test, a_hop_between_remote_stages_is_both_legs_through_the_main_host) {
  Star star;
  PlanningProblem plain = star.problem("auto");
  PlanningProblem p = via(plain, "mini-hub");
  // Remote to remote: into the main host (with its round trip to the stage) and out again, not
  // over the leaves' own Wi-Fi.
  EXPECT_NEAR(hop_s(p, "mbp-m4-max", "studio-m2-ultra"),
              hop_s(plain, "mbp-m4-max", "mini-hub") + kRoundTrip +
                  hop_s(plain, "mini-hub", "studio-m2-ultra"),
              1e-12);
  const auto& l = p.backend_links()[index_of(p, "mbp-m4-max")][index_of(p, "studio-m2-ultra")];
  ASSERT_TRUE(l);
  EXPECT_NE(l->name.find("via mini-hub"), std::string::npos) << l->name;
  // Into the main host: one leg and the round trip; out of it: one leg only.
  EXPECT_NEAR(hop_s(p, "studio-m2-ultra", "mini-hub"),
              hop_s(plain, "studio-m2-ultra", "mini-hub") + kRoundTrip, 1e-12);
  EXPECT_NEAR(hop_s(p, "mini-hub", "studio-m2-ultra"), hop_s(plain, "mini-hub", "studio-m2-ultra"),
              1e-12);
}

TEST(planning_problem_test, a_host_without_a_link_to_the_main_host_has_no_hop) {
  Star star;
  // Thunderbolt only: the leaves have no cable between them.
  PlanningProblem plain = star.problem("ring");
  ASSERT_EQ(hop_s(plain, "mbp-m4-max", "studio-m2-ultra"), kInfinity);
  PlanningProblem p = via(plain, "mbp-m4-max");
  for (const std::string other : {"mini-hub", "mbp-m4-max"}) {
    EXPECT_EQ(hop_s(p, "studio-m2-ultra", other), kInfinity) << other;
    EXPECT_EQ(hop_s(p, other, "studio-m2-ultra"), kInfinity) << other;
  }
  EXPECT_LT(hop_s(p, "mini-hub", "mbp-m4-max"), kInfinity);
  // Through the hub, every pair has its two legs.
  PlanningProblem hub = via(plain, "mini-hub");
  EXPECT_LT(hop_s(hub, "mbp-m4-max", "studio-m2-ultra"), kInfinity);
}

TEST(planning_problem_test, pins_follow_their_hosts_to_the_new_order) {
  Star star;
  PlanningProblem plain = star.problem("auto", {{"mini-hub", 28, 32}, {"mbp-m4-max", 0, 8}});
  PlanningProblem p = via(plain, "mini-hub");
  ASSERT_EQ(p.pins().size(), 2u);
  EXPECT_EQ(p.host(p.pins()[0].host).name, "mini-hub");
  EXPECT_EQ(p.pins()[0].start, 28);
  EXPECT_EQ(p.host(p.pins()[1].host).name, "mbp-m4-max");
  EXPECT_EQ(p.pins()[1].end, 8);
}

}  // namespace
}  // namespace meshplan::planning_problem_test

namespace meshplan::planning_problem_test {
namespace {

// `n` Mac minis on one 10 GbE switch (a /16, for more than 254 of them).
Cluster minis(int n) {
  std::string text = "schema: meshplan.cluster/1\nname: minis\nhosts:\n";
  for (int i = 1; i <= n; ++i)
    text += "  - {name: mini-" + std::to_string(i) +
            ", chip: m4-pro-20c, memory: 64GiB, interfaces: [{name: en0, kind: ethernet, ipv4: "
            "10.0." +
            std::to_string(i / 256) + "." + std::to_string(i % 256) +
            ", prefix: 16, speed_gbps: 10}]}\n";
  text += "links:\n  - {topology: switch, kind: 10gbe, hosts: all, subnet: 10.0.0.0/16}\n";
  return load_cluster(text, "minis.yaml", Catalog::builtin());
}

// Stages that reach the main host alike hop between each other alike, so the problem keeps one
// medium for them instead of a link per pair: the hops are those of both legs, and the links kept
// grow with the hosts (beyond the index per pair too).
TEST(planning_problem_test, stages_alike_share_one_medium_with_the_same_hops) {
  const ModelDesc model = ModelCatalog::builtin().resolve("llama-3.1-8b", "");
  for (int n : {6, 300}) {
    SCOPED_TRACE(n);
    const Cluster cluster = minis(n);
    PlanningProblem plain(cluster, Catalog::builtin(), model, PlanRequest{});
    PlanningProblem p = via(plain, "mini-3");
    ASSERT_EQ(p.size(), static_cast<size_t>(n));
    for (const std::string& a :
         std::vector<std::string>{"mini-1", "mini-2", "mini-" + std::to_string(n)})
      for (const std::string& b :
           std::vector<std::string>{"mini-1", "mini-4", "mini-" + std::to_string(n)}) {
        if (a == b) continue;
        EXPECT_NEAR(hop_s(p, a, b),
                    hop_s(plain, a, "mini-3") + kRoundTrip + hop_s(plain, "mini-3", b), 1e-12)
            << a << " -> " << b;
      }
    EXPECT_NEAR(hop_s(p, "mini-1", "mini-3"), hop_s(plain, "mini-1", "mini-3") + kRoundTrip, 1e-12);
    EXPECT_NEAR(hop_s(p, "mini-3", "mini-1"), hop_s(plain, "mini-3", "mini-1"), 1e-12);
    EXPECT_LE(p.backend_links().stored_links(), 3u * static_cast<size_t>(n));
  }
}

}  // namespace
}  // namespace meshplan::planning_problem_test
