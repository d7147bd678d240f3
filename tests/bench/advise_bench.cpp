// `meshplan advise` with the default options on eight Mac Studios in a Thunderbolt 5 ring (20
// cables missing for a mesh, a purchase, hosts to leave out, engines): every change alone, then
// pairs within the default budget. The target (docs/benchmarks.md): under 2 s for 8 hosts.
#include <benchmark/benchmark.h>

#include <string>

#include "lib/cluster/catalog.hpp"
#include "lib/cluster/cluster_loader.hpp"
#include "lib/core/clock.hpp"
#include "lib/core/file_system.hpp"
#include "solvers/advice/advisor.hpp"

namespace meshplan {
namespace {

std::string ring_yaml(int hosts) {
  std::string s = "name: ring\nhosts:\n";
  for (int i = 1; i <= hosts; ++i)
    s += "  - {name: studio-" + std::to_string(i) +
         ", chip: m3-ultra-80c, machine: mac-studio-m3-ultra, memory: 256GiB, rdma_enabled: "
         "true, os: {kind: macos, version: \"26.2\"}}\n";
  s += "links:\n";
  for (int i = 1; i <= hosts; ++i)
    s += "  - {a: studio-" + std::to_string(i) + ":1, b: studio-" + std::to_string(i % hosts + 1) +
         ":2, kind: tb5, rdma: true}\n";
  s += "  - {topology: switch, kind: 10gbe, hosts: all}\n";
  return s;
}

void BM_AdviseRing(benchmark::State& state, const char* model) {
  const Catalog& catalog = Catalog::builtin();
  Cluster cluster = load_cluster(ring_yaml(static_cast<int>(state.range(0))), "ring", catalog);
  RealFileSystem fs;
  SteadyClock clock;
  AdviseRequest r;
  r.model = model;
  r.plan.strategy = "auto";
  r.plan.engine = "";
  int plans = 0;
  for (auto _ : state) {
    AdviceReport report = advise(cluster, catalog, r, fs, clock);
    plans = report.plans;
    benchmark::DoNotOptimize(report);
  }
  state.counters["plans"] = plans;
}

BENCHMARK_CAPTURE(BM_AdviseRing, llama_405b_4bit, "llama-3.1-405b-4bit")
    ->Arg(4)
    ->Arg(8)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
BENCHMARK_CAPTURE(BM_AdviseRing, deepseek_v3_4bit, "deepseek-v3.1-4bit")
    ->Arg(8)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);

}  // namespace
}  // namespace meshplan
