// The pipeline plan on fleets: searched over at most a layer's count of each class of
// interchangeable hosts, and the same as the search over every host.
#include "solvers/pipeline/pipeline_plan.hpp"

#include <gtest/gtest.h>

#include <fmt/format.h>

#include <numeric>

#include "bench/fleet_families.hpp"
#include "lib/cluster/cluster_loader.hpp"
#include "lib/core/clock.hpp"
#include "solvers/pipeline/optimal_pipeline.hpp"
#include "solvers/problem/candidate_classes.hpp"
#include "solvers/problem/planning_problem.hpp"
#include "tests/plan_fixtures.hpp"

namespace meshplan::pipeline_plan_test {
namespace {

// Layers of 30 GB: one a Mac mini, so pipelines span hosts.
ModelDesc wide_model(int layers) {
  ModelDesc m = testing::tiny_model();
  m.layers.resize(static_cast<size_t>(layers), m.layers.back());
  for (LayerInfo& l : m.layers) {
    l.weight_bytes = 30'000'000'000;
    l.read_bytes = 30'000'000'000;
  }
  return m;
}

// The plan's hosts and token time against the optimal search over every candidate; returns
// whether the plan searched fewer hosts than the cluster has (the case under test).
bool expect_as_over_every_host(const Cluster& cluster, int layers) {
  const Catalog& catalog = Catalog::builtin();
  const ModelDesc model = wide_model(layers);
  PlanRequest request;
  request.backend = "ethernet";
  PlanningProblem problem(cluster, catalog, model, request);
  const bool fewer = at_most_per_class(problem, model.layers.size()).size() < problem.size();

  FakeClock clock;
  const StrategyOutcome out = plan_pipeline(problem, clock);
  EXPECT_TRUE(out.plan) << out.reason;
  if (!out.plan) return fewer;

  PipelineConstraints constraints;
  constraints.head_host = problem.head_host();
  SearchSpace space(problem.pipeline_cost(), constraints);
  std::vector<size_t> order(problem.size());
  std::iota(order.begin(), order.end(), size_t{0});
  const SearchResult every = solve_optimal_pipeline(space, order);
  EXPECT_TRUE(every.feasible);
  EXPECT_NEAR(out.plan->predicted.token_latency_s,
              problem.pipeline_cost().evaluate(every.assignment).token_latency_s, 1e-12);
  EXPECT_EQ(out.plan->ranks.size(), every.assignment.order.size());
  for (size_t r = 0; r < out.plan->ranks.size() && r < every.assignment.order.size(); ++r)
    EXPECT_EQ(out.plan->ranks[r].host, problem.host(every.assignment.order[r]).name);
  return fewer;
}

TEST(pipeline_plan_test, one_kind_of_host_plans_as_over_every_host) {
  EXPECT_TRUE(expect_as_over_every_host(generate_fleet("minis", 12, 1, Catalog::builtin()), 5));
}

// Eight Mac minis of 64 GiB (the first two cabled by Thunderbolt 5) and six of 48 GiB on one
// switch: three classes, two of them larger than the three layers.
TEST(pipeline_plan_test, several_classes_plan_as_over_every_host) {
  std::string text = "schema: meshplan.cluster/1\nname: minis\nhosts:\n";
  for (int i = 1; i <= 14; ++i)
    text += fmt::format(
        "  - {{name: mini-{}, chip: m4-pro-20c, memory: {}GiB, interfaces: [{{name: en0, kind: "
        "ethernet, ipv4: 10.0.0.{}, prefix: 24, speed_gbps: 10}}]}}\n",
        i, i <= 8 ? 64 : 48, i);
  text +=
      "links:\n  - {topology: switch, kind: 10gbe, hosts: all, subnet: 10.0.0.0/24}\n"
      "  - {a: mini-1, b: mini-2, kind: tb5}\n";
  EXPECT_TRUE(expect_as_over_every_host(load_cluster(text, "minis.yaml", Catalog::builtin()), 3));
}

// Two Mac Studios (M3 Ultra, 256 GiB) and ten Mac minis (M4 Pro, 64 GiB) on one switch: a mini
// holding even one layer is slower than the Studios' pipeline, so the minis are not searched,
// and the plan is the one the search over every host finds.
TEST(pipeline_plan_test, hosts_too_slow_to_beat_a_known_pipeline_are_not_searched) {
  std::string text = "schema: meshplan.cluster/1\nname: studios-and-minis\nhosts:\n";
  for (int i = 1; i <= 12; ++i)
    text += fmt::format(
        "  - {{name: {}-{}, chip: {}, memory: {}GiB, interfaces: [{{name: en0, kind: ethernet, "
        "ipv4: 10.0.0.{}, prefix: 24, speed_gbps: 10}}]}}\n",
        i <= 2 ? "studio" : "mini", i, i <= 2 ? "m3-ultra-80c" : "m4-pro-20c", i <= 2 ? 256 : 64,
        i);
  text += "links:\n  - {topology: switch, kind: 10gbe, hosts: all, subnet: 10.0.0.0/24}\n";
  const Catalog& catalog = Catalog::builtin();
  const Cluster cluster = load_cluster(text, "studios-and-minis.yaml", catalog);
  // Three layers: one Studio holds them; eight: both Studios are needed.
  for (int layers : {3, 8}) {
    EXPECT_TRUE(expect_as_over_every_host(cluster, layers)) << layers << " layers";
    PlanRequest request;
    request.backend = "ethernet";
    const ModelDesc model = wide_model(layers);
    PlanningProblem problem(cluster, catalog, model, request);
    FakeClock clock;
    const StrategyOutcome out = plan_pipeline(problem, clock);
    ASSERT_TRUE(out.plan) << out.reason;
    EXPECT_NE(
        out.plan->solver.note.find(layers == 3 ? "over 2 of the 12 hosts: none that holding even "
                                                 "one layer could beat studio-1 alone"
                                               : "over 2 of the 12 hosts: none that holding even "
                                                 "one layer could beat studio-1 and 1 more"),
        std::string::npos)
        << out.plan->solver.note;
    for (const RankPlan& r : out.plan->ranks)
      EXPECT_EQ(r.host.rfind("studio-", 0), 0u) << r.host;
  }
  // --max-hosts 1 with eight layers: no host holds them alone, and the two Studios that do
  // together are no pipeline the search may return, so none is.
  PlanRequest one;
  one.backend = "ethernet";
  one.max_hosts = 1;
  const ModelDesc eight = wide_model(8);
  PlanningProblem problem(cluster, catalog, eight, one);
  FakeClock clock;
  EXPECT_THROW(plan_pipeline(problem, clock), Error);
}

TEST(pipeline_plan_test, hosts_beyond_the_search_are_left_out_for_speed) {
  const Catalog& catalog = Catalog::builtin();
  const Cluster cluster = generate_fleet("minis", 12, 1, catalog);
  const ModelDesc model = wide_model(5);
  PlanningProblem problem(cluster, catalog, model, PlanRequest{});
  FakeClock clock;
  const StrategyOutcome out = plan_pipeline(problem, clock);
  ASSERT_TRUE(out.plan) << out.reason;
  ASSERT_EQ(out.plan->hosts.size(), 12u);
  for (const HostInfo& h : out.plan->hosts) {
    if (!h.used) {
      EXPECT_EQ(h.left_out, "using it would not make the plan faster") << h.name;
    }
  }
}

}  // namespace
}  // namespace meshplan::pipeline_plan_test
