// Hybrid plans (tensor-parallel groups of hosts in a pipeline) over twelve Macs: six Mac Studios
// (M3 Ultra, 96 GiB) and six Mac minis (M4 Pro, 64 GiB) on a 10 GbE switch, four of them also
// in a TB5 RDMA mesh, for Llama 3.1 405B 4-bit. Twelve hosts is the most the groupings range over;
// the search stops at kMaxGroupings groupings, most promising first.
#include <benchmark/benchmark.h>

#include <string>

#include "lib/cluster/catalog.hpp"
#include "lib/cluster/cluster_loader.hpp"
#include "lib/core/clock.hpp"
#include "lib/models/model_catalog.hpp"
#include "solvers/strategy/strategy_planner.hpp"

namespace meshplan {
namespace {

Cluster twelve_macs() {
  std::string yaml = "schema: meshplan.cluster/1\nhosts:\n";
  for (int i = 0; i < 12; ++i) {
    const bool studio = i % 2 == 0;
    yaml += "  - {name: mac-" + std::to_string(i) +
            ", chip: " + (studio ? "m3-ultra-60c, memory: 96GiB" : "m4-pro-20c, memory: 64GiB") +
            ", os: {kind: macos, version: \"26.2\"}, interfaces: [{name: en0, kind: ethernet, "
            "ipv4: 10.0.0." +
            std::to_string(i + 1) + ", prefix: 24, speed_gbps: 10}]}\n";
  }
  yaml +=
      "links:\n  - {topology: switch, kind: 10gbe, hosts: all, subnet: 10.0.0.0/24}\n"
      "  - {topology: full-mesh, kind: tb5, rdma: true, hosts: [mac-0, mac-1, mac-2, mac-3]}\n";
  return load_cluster(yaml, "bench.yaml", Catalog::builtin());
}

void BM_hybrid_12_macs(benchmark::State& state) {
  const Cluster cluster = twelve_macs();
  const ModelDesc model = ModelCatalog::builtin().resolve("llama-3.1-405b", "4bit");
  PlanRequest request;
  request.strategy = "hybrid";
  SteadyClock clock;
  Plan plan;
  for (auto _ : state) {
    plan = plan_model(cluster, Catalog::builtin(), model, request, clock);
    benchmark::DoNotOptimize(plan);
  }
  state.counters["ranks"] = static_cast<double>(plan.ranks.size());
  state.counters["tokens_per_s"] = plan.predicted.decode_tokens_per_s;
  state.counters["gap_percent"] = plan.bound ? plan.bound->gap_percent : -1;
}
BENCHMARK(BM_hybrid_12_macs)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace meshplan
