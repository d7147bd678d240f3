// Solve time of the optimal pipeline planner: the exact search on 12 hosts x 126 layers (a
// Llama-3.1-405B-sized model) and the heuristic on 64 hosts, on seeded clusters of the benchmark
// families (heterogeneous hosts with profile noise, so no symmetry helps the exact search).
#include <benchmark/benchmark.h>

#include <memory>

#include "bench/cluster_families.hpp"
#include "lib/cluster/catalog.hpp"
#include "lib/cluster/host_figures.hpp"
#include "lib/cluster/link_graph.hpp"
#include "lib/models/model_catalog.hpp"
#include "solvers/pipeline/exact_pipeline.hpp"
#include "solvers/pipeline/host_classes.hpp"
#include "solvers/pipeline/optimal_pipeline.hpp"

namespace meshplan {
namespace {

// Llama-3.1-405B (126 layers) from the catalog, or Llama-3.3-70B's layers scaled to its size.
const ModelDesc& model_126_layers() {
  static const ModelDesc model = [] {
    const ModelCatalog& catalog = ModelCatalog::builtin();
    if (catalog.find("llama-3.1-405b")) return catalog.resolve("llama-3.1-405b", "4bit");
    ModelDesc m = catalog.resolve("llama-3.3-70b", "4bit");
    LayerInfo layer = m.layers.front();
    const double scale =
        (16384.0 / 8192.0) * (53248.0 / 28672.0);  // hidden x MLP width of 405B over 70B
    layer.weight_bytes = static_cast<uint64_t>(static_cast<double>(layer.weight_bytes) * scale);
    layer.read_bytes = layer.weight_bytes;
    layer.flops *= scale;
    m.name = "llama-405b-like-4bit";
    m.hidden_size = 16384;
    m.layers.assign(126, layer);
    for (int i = 0; i < 126; ++i)
      m.layers[static_cast<size_t>(i)].index = i;
    return m;
  }();
  return model;
}

struct Instance {
  std::unique_ptr<PipelineCostModel> cost;
  std::vector<size_t> order;
};

Instance make_instance(const std::string& family, int hosts, const ModelDesc& model,
                       uint64_t seed) {
  const Catalog& catalog = Catalog::builtin();
  Cluster cluster = generate_cluster(family, hosts, seed, catalog);
  std::vector<HostFigures> figures;
  for (const Host& h : cluster.hosts)
    figures.push_back(host_figures(h, catalog));
  LinkGraph graph(cluster, catalog);
  const size_t n = cluster.hosts.size();
  std::vector<std::vector<std::optional<LinkFigures>>> links(
      n, std::vector<std::optional<LinkFigures>>(n));
  for (size_t a = 0; a < n; ++a)
    for (size_t b = 0; b < n; ++b)
      if (a != b)
        links[a][b] =
            graph.best(a, b, Transport::kAny, catalog.activation_bytes() * model.hidden_size);
  Instance in;
  in.cost = std::make_unique<PipelineCostModel>(model, figures, links, 4096, 512,
                                                catalog.activation_bytes());
  for (size_t i = 0; i < n; ++i)
    in.order.push_back(i);
  return in;
}

void run(benchmark::State& state, const std::string& family, int hosts, const ModelDesc& model) {
  Instance in = make_instance(family, hosts, model, 2024);
  SearchSpace space(*in.cost, {});
  SearchResult r;
  for (auto _ : state) {
    r = solve_optimal_pipeline(space, in.order);
    benchmark::DoNotOptimize(r);
  }
  if (!r.feasible) state.SkipWithError("the model does not fit this cluster");
  state.counters["exact"] = r.exact ? 1 : 0;
  state.counters["token_ms"] = r.latency_s * 1e3;
  state.counters["ranks"] = static_cast<double>(r.assignment.order.size());
}

void BM_exact_12_hosts_126_layers(benchmark::State& state, const char* family) {
  run(state, family, 12, model_126_layers());
}
BENCHMARK_CAPTURE(BM_exact_12_hosts_126_layers, tb5_mesh, "tb5-mesh")
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_exact_12_hosts_126_layers, switch_10gbe, "10gbe-switch")
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_exact_12_hosts_126_layers, daisy_chain, "daisy-chain")
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_exact_12_hosts_126_layers, mixed_islands, "mixed-islands")
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_exact_12_hosts_126_layers, long_tail, "long-tail")
    ->Unit(benchmark::kMillisecond);

// The exact search alone, without the incumbent from the seed orders and without symmetry: the
// least pruning it can get.
void BM_exact_12_hosts_126_layers_unseeded(benchmark::State& state, const char* family) {
  Instance in = make_instance(family, 12, model_126_layers(), 2024);
  SearchSpace space(*in.cost, {});
  HostClasses classes = singleton_classes(12);
  for (auto _ : state)
    benchmark::DoNotOptimize(exact_pipeline_search(space, classes));
}
BENCHMARK_CAPTURE(BM_exact_12_hosts_126_layers_unseeded, switch_10gbe, "10gbe-switch")
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_exact_12_hosts_126_layers_unseeded, long_tail, "long-tail")
    ->Unit(benchmark::kMillisecond);

void BM_heuristic_64_hosts_126_layers(benchmark::State& state, const char* family) {
  run(state, family, 64, model_126_layers());
}
BENCHMARK_CAPTURE(BM_heuristic_64_hosts_126_layers, tb5_mesh, "tb5-mesh")
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_heuristic_64_hosts_126_layers, switch_10gbe, "10gbe-switch")
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_heuristic_64_hosts_126_layers, daisy_chain, "daisy-chain")
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_heuristic_64_hosts_126_layers, mixed_islands, "mixed-islands")
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_heuristic_64_hosts_126_layers, long_tail, "long-tail")
    ->Unit(benchmark::kMillisecond);

void BM_heuristic_64_hosts_deepseek(benchmark::State& state, const char* family) {
  static const ModelDesc model = ModelCatalog::builtin().resolve("deepseek-v3.1", "4bit");
  run(state, family, 64, model);
}
BENCHMARK_CAPTURE(BM_heuristic_64_hosts_deepseek, long_tail, "long-tail")
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_heuristic_64_hosts_deepseek, switch_10gbe, "10gbe-switch")
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace meshplan
