// rpc_round_trip_s: what llama.cpp's client adds to a token for each remote stage, from the link
// between the main host and the stage (calibrate's round trip, else twice its TCP latency).
#include "solvers/strategy/own_splits.hpp"

#include <gtest/gtest.h>

#include "lib/cluster/cluster_loader.hpp"
#include "lib/core/clock.hpp"
#include "lib/models/model_catalog.hpp"
#include "solvers/strategy/strategy_planner.hpp"

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

// llama.cpp reads 4-bit weights at 0.85 of the bandwidth it reaches on 8-bit ones (Macs and
// GPUs; a CPU host keeps its own figure): on one Mac a 4-bit model's layers take 1/0.85 as long
// under llama.cpp as under mlx-lm, and the plan says why; an 8-bit model's take the same.
TEST(own_splits_test, llama_cpp_reads_low_bit_weights_slower_on_a_mac) {
  const Cluster mac =
      load_cluster("hosts:\n  - {name: studio, chip: m3-ultra-80c, memory: 512GiB, os: macos}\n",
                   "mac.yaml", Catalog::builtin());
  auto plan = [&](const std::string& model, const std::string& engine) {
    PlanRequest r;
    r.strategy = "pipeline";
    r.engine = engine;
    return plan_model(mac, Catalog::builtin(), ModelCatalog::builtin().resolve(model, ""), r,
                      SteadyClock());
  };
  auto noted = [](const Plan& p) {
    for (const std::string& n : p.notes)
      if (n.find("% of what its hosts' GPUs reach on wider ones") != std::string::npos) return true;
    return false;
  };
  const double reads = Catalog::builtin().engine_weight_reads("llama-rpc").at(4.5);
  ASSERT_LT(reads, 1);
  const Plan llama4 = plan("llama-3.3-70b-4bit", "llama-rpc");
  const Plan mlx4 = plan("llama-3.3-70b-4bit", "mlx-lm");
  EXPECT_NEAR(llama4.ranks[0].stage_s - llama4.stage_overhead_s,
              (mlx4.ranks[0].stage_s - mlx4.stage_overhead_s) / reads, 1e-9);
  EXPECT_TRUE(noted(llama4));
  const Plan llama8 = plan("llama-3.3-70b-8bit", "llama-rpc");
  const Plan mlx8 = plan("llama-3.3-70b-8bit", "mlx-lm");
  EXPECT_NEAR(llama8.ranks[0].stage_s - llama8.stage_overhead_s,
              mlx8.ranks[0].stage_s - mlx8.stage_overhead_s, 1e-9);
  EXPECT_FALSE(noted(llama8));
  EXPECT_EQ(Catalog::builtin().engine_weight_reads("mlx-lm").at(4.5), 1);
}

TEST(own_splits_test, engines_without_a_figure_add_nothing) {
  EXPECT_EQ(Catalog::builtin().engine_hop("vllm").on(1e-3), 0);
}

}  // namespace
}  // namespace meshplan::own_splits_test
