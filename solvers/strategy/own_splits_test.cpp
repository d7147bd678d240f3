// rpc_round_trip_s: what llama.cpp's client adds to a token for each remote stage, from the link
// between the main host and the stage (calibrate's round trip, else twice its TCP latency).
#include "solvers/strategy/own_splits.hpp"

#include <gtest/gtest.h>

#include "lib/cluster/cluster_loader.hpp"
#include "lib/models/model_catalog.hpp"

namespace meshplan::own_splits_test {
namespace {

struct Pair {
  Cluster cluster;
  ModelDesc model = ModelCatalog::builtin().resolve("llama-3.1-8b", "");
  explicit Pair(const std::string& cable)
      : cluster(load_cluster(
            "hosts:\n  - {name: a, os: linux, memory: 64GiB, mem_bandwidth: 50GB/s, flops: 1T}\n"
            "  - {name: b, os: linux, memory: 64GiB, mem_bandwidth: 50GB/s, flops: 1T}\nlinks:\n  "
            "- " +
                cable + "\n",
            "pair.yaml", Catalog::builtin())) {}
  double round_trip_s() const {
    PlanRequest r;
    PlanningProblem p(cluster, Catalog::builtin(), model, r);
    return rpc_round_trip_s(Catalog::builtin(), *find_engine("llama-rpc"), p, 0, 1);
  }
};

TEST(own_splits_test, a_remote_stage_costs_the_engines_round_trips_on_the_measured_link) {
  const Catalog::EngineHop hop = Catalog::builtin().engine_hop("llama-rpc");
  ASSERT_GT(hop.round_trips, 0);
  ASSERT_GT(hop.stage_s, 0);
  const double measured = Pair("{a: a, b: b, kind: 10gbe, round_trip_us: 40}").round_trip_s();
  EXPECT_NEAR(measured, hop.round_trips * 40e-6 + hop.stage_s, 1e-12);
  // Not measured: twice the kind's TCP latency (10 GbE: 150 us).
  const double catalog = Pair("{a: a, b: b, kind: 10gbe}").round_trip_s();
  EXPECT_NEAR(catalog, hop.round_trips * 300e-6 + hop.stage_s, 1e-12);
  EXPECT_LT(measured, catalog);
}

// The fit's two settings: Jeff Geerling's M3 Ultras lost 3.5-4.0 ms a hop beyond the link over
// Thunderbolt TCP (a 0.6 ms round trip); the namespace cluster's cables of 40 us about 1 ms each
// remote stage.
TEST(own_splits_test, the_fit_meets_both_settings_it_was_fitted_to) {
  const Catalog::EngineHop hop = Catalog::builtin().engine_hop("llama-rpc");
  EXPECT_NEAR(hop.on(600e-6), 3.75e-3, 0.3e-3);
  EXPECT_NEAR(hop.on(40e-6), 0.95e-3, 0.25e-3);
}

TEST(own_splits_test, engines_without_a_figure_add_nothing) {
  EXPECT_EQ(Catalog::builtin().engine_hop("vllm").on(1e-3), 0);
}

}  // namespace
}  // namespace meshplan::own_splits_test
