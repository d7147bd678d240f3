// Planning a workload of three models on 16 hosts with replicas (issue 16: within 2 s, median):
// Mac Studios, MacBook-class M4 Max and Mac minis on one 10 GbE switch, TB5 cables in a ring.
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "lib/cluster/catalog.hpp"
#include "lib/cluster/cluster_loader.hpp"
#include "lib/core/clock.hpp"
#include "lib/models/model_catalog.hpp"
#include "solvers/serving/workload_planner.hpp"

namespace meshplan {
namespace {

Cluster mixed_16() {
  const char* chips[] = {"m3-ultra-80c", "m3-ultra-60c", "m4-max-40c", "m4-pro-20c"};
  const char* memory[] = {"512GiB", "256GiB", "128GiB", "64GiB"};
  std::string yaml = "schema: meshplan.cluster/1\nhosts:\n";
  for (int i = 0; i < 16; ++i) {
    yaml += "  - {name: h" + std::to_string(i) + ", chip: " + chips[i % 4] +
            ", memory: " + memory[i % 4] + "}\n";
  }
  yaml +=
      "links:\n  - {topology: ring, kind: tb5, rdma: true, hosts: all}\n  - {kind: 10gbe, hosts: "
      "all}\n";
  return load_cluster(yaml, "bench.yaml", Catalog::builtin());
}

void BM_workload_3_models_16_hosts(benchmark::State& state) {
  const Cluster cluster = mixed_16();
  const ModelCatalog& catalog = ModelCatalog::builtin();
  std::vector<ModelDesc> descs = {catalog.resolve("qwen3-235b-a22b", "8bit"),
                                  catalog.resolve("llama-3.3-70b", "4bit"),
                                  catalog.resolve("qwen3-30b-a3b", "4bit")};
  std::vector<WorkloadModel> models;
  const double shares[] = {0.2, 0.5, 0.3};
  for (size_t i = 0; i < descs.size(); ++i) {
    WorkloadEntry e;
    e.model = descs[i].name;
    e.share = shares[i];
    e.prompt = 1000;
    e.output = 300;
    e.context = 8192;
    models.push_back({&descs[i], e});
  }
  PlanRequest request;
  request.strategy = "auto";
  request.objective = "throughput";
  SteadyClock clock;
  size_t replicas = 0;
  for (auto _ : state) {
    WorkloadPlan plan = plan_workload(cluster, Catalog::builtin(), models, request, clock);
    replicas = 0;
    for (const Plan& p : plan.plans)
      replicas += std::max<size_t>(1, p.replicas.size());
    benchmark::DoNotOptimize(plan);
  }
  state.counters["replicas"] = static_cast<double>(replicas);
}
BENCHMARK(BM_workload_3_models_16_hosts)
    ->Unit(benchmark::kMillisecond)
    ->Repetitions(5)
    ->ReportAggregatesOnly(true);

}  // namespace
}  // namespace meshplan
