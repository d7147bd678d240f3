// Planning a pipeline over 16 hosts of 8 GPUs each, the tensor-parallel degree of every host
// chosen (issue 15: under 1 s): 8 HGX H100 boxes on NVSwitch and 8 PCIe L40S boxes of two sockets,
// on one InfiniBand switch, for Llama 3.1 405B in bf16.
#include <benchmark/benchmark.h>

#include <string>

#include "lib/cluster/catalog.hpp"
#include "lib/cluster/cluster_loader.hpp"
#include "lib/core/clock.hpp"
#include "lib/models/model_catalog.hpp"
#include "solvers/pipeline/pipeline_plan.hpp"

namespace meshplan {
namespace {

Cluster gpu_hosts_16() {
  std::string yaml = "schema: meshplan.cluster/1\nhosts:\n";
  for (int i = 0; i < 16; ++i) {
    const bool hgx = i % 2 == 0;
    yaml += "  - name: n" + std::to_string(i) + "\n    os: {kind: linux}\n    memory: 2TiB\n" +
            "    gpus: 8 x " + (hgx ? "h100-sxm" : "l40s") + "\n";
    if (hgx) {
      yaml += "    nvlink: 18\n";
      continue;
    }
    yaml += "    gpu_links:\n";
    for (int a = 0; a < 8; ++a) {
      yaml += "      - [";
      for (int b = 0; b < 8; ++b)
        yaml += std::string(b ? ", " : "") + (a == b ? "X" : a / 4 == b / 4 ? "PIX" : "SYS");
      yaml += "]\n";
    }
  }
  yaml += "links:\n  - {topology: switch, kind: ib-ndr, hosts: all}\n";
  return load_cluster(yaml, "bench.yaml", Catalog::builtin());
}

void BM_pipeline_16_hosts_of_8_gpus(benchmark::State& state) {
  const Cluster cluster = gpu_hosts_16();
  const ModelDesc model = ModelCatalog::builtin().resolve("llama-3.1-405b", "bf16");
  PlanRequest request;
  request.context = 8192;
  SteadyClock clock;
  Plan plan;
  for (auto _ : state) {
    plan = make_plan(cluster, Catalog::builtin(), model, request, clock);
    benchmark::DoNotOptimize(plan);
  }
  state.counters["ranks"] = static_cast<double>(plan.ranks.size());
  state.counters["tokens_per_s"] = plan.predicted.decode_tokens_per_s;
  state.counters["gap_percent"] = plan.bound ? plan.bound->gap_percent : -1;
  state.counters["proven"] = plan.solver.optimal ? 1 : 0;
  int hgx_tp = 0, pcie_tp = 0;
  for (const RankPlan& r : plan.ranks)
    (std::stoi(r.host.substr(1)) % 2 == 0 ? hgx_tp : pcie_tp) = r.tp;
  state.counters["hgx_tp"] = hgx_tp;
  state.counters["pcie_tp"] = pcie_tp;
}
BENCHMARK(BM_pipeline_16_hosts_of_8_gpus)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace meshplan
