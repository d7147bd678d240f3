// Cost of evaluating one pipeline assignment of the largest catalog model on the 4-host example.
#include <benchmark/benchmark.h>

#include "lib/cluster/catalog.hpp"
#include "lib/cluster/host_figures.hpp"
#include "lib/models/model_catalog.hpp"
#include "solvers/pipeline/proportional_solver.hpp"
#include "solvers/problem/pipeline_cost.hpp"

namespace meshplan {
namespace {

void BM_proportional_evaluate(benchmark::State& state) {
  const Catalog& catalog = Catalog::builtin();
  ModelDesc model = ModelCatalog::builtin().resolve("deepseek-v3.1-4bit", "");
  Host h;
  h.name = "m3";
  h.chip = "m3-ultra-80c";
  h.memory = 512ull << 30;
  std::vector<HostFigures> hosts;
  for (int i = 0; i < 4; ++i) {
    hosts.push_back(host_figures(h, catalog));
    hosts.back().name = "m3-" + std::to_string(i);
  }
  LinkFigures link;
  link.name = "tb5-rdma";
  link.latency_s = 50e-6;
  link.bandwidth = 6.5e9;
  std::vector<std::vector<std::optional<LinkFigures>>> links(
      4, std::vector<std::optional<LinkFigures>>(4, link));
  PipelineCostModel cost(model, hosts, links, 4096, 512, 2);
  for (auto _ : state) {
    PipelineAssignment a = proportional_assignment(cost, {0, 1, 2, 3});
    benchmark::DoNotOptimize(cost.evaluate(a));
  }
}
BENCHMARK(BM_proportional_evaluate);

}  // namespace
}  // namespace meshplan
