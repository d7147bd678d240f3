// Expert placement at DeepSeek scale (64 hosts x 256 experts x 58 MoE layers, a different skewed
// load in every layer) and tensor / expert group selection on larger clusters.
#include <benchmark/benchmark.h>

#include <cmath>
#include <random>
#include <string>

#include "lib/cluster/catalog.hpp"
#include "lib/cluster/cluster_loader.hpp"
#include "lib/models/model_catalog.hpp"
#include "solvers/parallel/expert_placement.hpp"
#include "solvers/strategy/strategy_planner.hpp"

namespace meshplan {
namespace {

// 64 unequal hosts (four speed classes) with room for 5 experts of every layer each: 320 slots
// for 256 experts, so a few copies of the busiest fit. The routed experts dominate the layer time
// (a small non-expert part), so that the balance matters.
std::vector<ExpertInstance> deepseek_scale() {
  std::mt19937 rng(58);
  std::uniform_real_distribution<double> unit(0, 1);
  std::vector<ExpertHost> hosts;
  for (int i = 0; i < 64; ++i) {
    const double speed = 1.0 + (i % 4);
    hosts.push_back(ExpertHost{2e-6 / speed, 6e-5 / speed, 5});
  }
  std::vector<ExpertInstance> layers;
  for (int l = 0; l < 58; ++l) {
    ExpertInstance inst;
    inst.experts_per_token = 8;
    inst.hosts = hosts;
    double total = 0;
    for (int e = 0; e < 256; ++e) {
      inst.load.push_back(std::pow(1.0 + ((e * 37 + l * 11) % 256), -0.8) * (0.5 + unit(rng)));
      total += inst.load.back();
    }
    for (double& x : inst.load)
      x /= total;
    layers.push_back(std::move(inst));
  }
  return layers;
}

void BM_expert_placement_64_hosts_256_experts_58_layers(benchmark::State& state) {
  const std::vector<ExpertInstance> layers = deepseek_scale();
  double gap = 0;
  for (auto _ : state) {
    double makespan = 0, bound = 0;
    for (const auto& inst : layers) {
      auto p = place_experts(inst);
      makespan += p->makespan;
      bound += p->lower_bound;
    }
    gap = 100 * (makespan - bound) / bound;
    benchmark::DoNotOptimize(makespan);
  }
  state.counters["gap_percent"] = gap;
}
BENCHMARK(BM_expert_placement_64_hosts_256_experts_58_layers)
    ->Unit(benchmark::kMillisecond)
    ->Repetitions(5)
    ->ReportAggregatesOnly(true);

// n Mac Studios on one 10 GbE switch, TB5 RDMA cables in a ring.
Cluster studios(int n) {
  std::string yaml = "schema: meshplan.cluster/1\nhosts:\n";
  for (int i = 0; i < n; ++i) {
    yaml += "  - {name: s" + std::to_string(i) +
            ", chip: " + (i % 2 ? "m3-ultra-80c" : "m3-ultra-60c") +
            ", memory: " + (i % 2 ? "256GiB" : "96GiB") + "}\n";
  }
  yaml +=
      "links:\n  - {topology: ring, kind: tb5, rdma: true, hosts: all}\n  - {kind: 10gbe, hosts: "
      "all}\n";
  return load_cluster(yaml, "bench.yaml", Catalog::builtin());
}

void plan_bench(benchmark::State& state, const std::string& strategy,
                const std::string& model_name) {
  Cluster cluster = studios(static_cast<int>(state.range(0)));
  ModelDesc model = ModelCatalog::builtin().resolve(model_name, "");
  PlanRequest r;
  r.strategy = strategy;
  SteadyClock clock;
  for (auto _ : state)
    benchmark::DoNotOptimize(plan_model(cluster, Catalog::builtin(), model, r, clock));
}

void BM_tensor_group_selection(benchmark::State& state) {
  plan_bench(state, "tensor", "deepseek-v3.1-4bit");
}
BENCHMARK(BM_tensor_group_selection)
    ->Arg(4)
    ->Arg(8)
    ->Arg(16)
    ->Arg(64)
    ->Unit(benchmark::kMillisecond);

void BM_expert_group_selection(benchmark::State& state) {
  plan_bench(state, "expert", "deepseek-v3.1-4bit");
}
BENCHMARK(BM_expert_group_selection)
    ->Arg(4)
    ->Arg(8)
    ->Arg(16)
    ->Arg(64)
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace meshplan
