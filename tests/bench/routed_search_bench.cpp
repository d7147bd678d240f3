// Routed serving layouts (solvers/routed_search.hpp) on Helix's own clusters and on seeded
// Helix-like families (solvers/routed_families.hpp). The Helix clusters are read from
// tests/fixtures/helix/ (each node's profiled table; every pair of nodes linked at Helix's
// capacity). Counters: the flow, the upper bound, the gap between them in percent, the wall time of
// the solve, and for Helix's clusters Helix's own result (Gurobi) and the ratio to it; for the
// families the mean and worst gap and time over the instances, and how many fell below the sweep
// over shared stage boundaries alone (never any).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "bench/routed_families.hpp"
#include "lib/core/clock.hpp"
#include "solvers/problem/throughput_profile.hpp"
#include "solvers/routed/routed_greedy.hpp"
#include "solvers/routed/routed_search.hpp"
#include "solvers/routed/routed_stages.hpp"
#include "tests/helix_fixtures.hpp"

namespace meshplan {
namespace {

using testing::helix_cluster;

double gap_pct(const RoutedSolution& s) {
  return s.flow.total > 0 ? (s.bound.tokens_per_s / s.flow.total - 1) * 100 : 100;
}

// `helix`: Helix's best layout's flow in its artifact logs (trace.txt), for the ratio.
void BM_RoutedHelix(benchmark::State& state, const char* name, int layers, double link,
                    double helix) {
  const RoutedInstance in = helix_cluster(name, layers, link);
  RoutedSolution s;
  SteadyClock clock;
  double wall = 0;
  for (auto _ : state) {
    const double t0 = clock.now_seconds();
    s = solve_routed(in);
    wall = clock.now_seconds() - t0;
  }
  state.counters["flow"] = s.flow.total;
  state.counters["bound"] = s.bound.tokens_per_s;
  state.counters["gap_pct"] = gap_pct(s);
  state.counters["wall_s"] = wall;
  state.counters["optimal"] = s.optimal;
  state.counters["helix"] = helix;
  state.counters["vs_helix"] = s.flow.total / helix;
}
BENCHMARK_CAPTURE(BM_RoutedHelix, helix_10_nodes_60_layers, "helix-10", 60, 75120.19, 286.587)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
BENCHMARK_CAPTURE(BM_RoutedHelix, helix_24_nodes_80_layers, "helix-24", 80, 61035.16, 1289.556)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
BENCHMARK_CAPTURE(BM_RoutedHelix, helix_42_nodes_80_layers, "helix-42", 80, 61035.16, 4892.242)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);

// Eight instances per family: 10, 24, 42 and 64 nodes, over 60 and 80 layers.
void BM_RoutedFamily(benchmark::State& state, const char* family) {
  double gap_sum = 0, gap_worst = 0, wall_sum = 0, wall_worst = 0, below_sweep = 0;
  int count = 0;
  SteadyClock clock;
  for (auto _ : state) {
    for (int hosts : {10, 24, 42, 64})
      for (uint64_t seed : {1, 2}) {
        const int layers = seed == 1 ? 60 : 80;
        const RoutedInstance in =
            generate_routed_instance(family, hosts, layers, seed * 100 + hosts);
        const double t0 = clock.now_seconds();
        const RoutedSolution s = solve_routed(in);
        const double wall = clock.now_seconds() - t0;
        const RoutedInstance ordered = routed_reordered(in, routed_canonical_order(in));
        const Chains sweep = greedy_stage_layout(ordered, interchangeable_hosts(ordered), 0,
                                                 s.bound.tokens_per_s, clock, 0);
        below_sweep += s.flow.total < sweep.tokens_per_s * (1 - 1e-9);
        gap_sum += gap_pct(s);
        gap_worst = std::max(gap_worst, gap_pct(s));
        wall_sum += wall;
        wall_worst = std::max(wall_worst, wall);
        ++count;
      }
  }
  state.counters["instances"] = count;
  state.counters["gap_mean_pct"] = gap_sum / count;
  state.counters["gap_worst_pct"] = gap_worst;
  state.counters["wall_mean_s"] = wall_sum / count;
  state.counters["wall_worst_s"] = wall_worst;
  state.counters["below_sweep"] = below_sweep;
}
BENCHMARK_CAPTURE(BM_RoutedFamily, one_region, "one-region")
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
BENCHMARK_CAPTURE(BM_RoutedFamily, two_regions, "two-regions")
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
BENCHMARK_CAPTURE(BM_RoutedFamily, four_regions, "four-regions")
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);

// Today's gap split into the part the bound leaves and the part the search leaves, on instances
// small enough to solve exactly: 6 nodes over 40 layers, seeds 1-3, the optimum by the branch and
// bound given a budget it finishes within (proven: every instance, or the counter says how many),
// cross-checked by the mixed-integer program of bench/routed_exact.hpp in the tests on smaller
// ones.
void BM_RoutedGapSplit(benchmark::State& state, const char* family) {
  double bound_gap = 0, search_gap = 0, search_worst = 0;
  int count = 0, proven = 0;
  for (auto _ : state) {
    for (uint64_t seed : {1, 2, 3}) {
      const RoutedInstance in = generate_routed_instance(family, 6, 40, seed);
      RoutedOptions exhaustive;
      exhaustive.time_limit_s = 200;
      const RoutedSolution best = solve_routed(in, exhaustive);
      const RoutedSolution s = solve_routed(in);
      proven += best.optimal;
      bound_gap += (s.bound.tokens_per_s / best.flow.total - 1) * 100;
      const double gap = (best.flow.total / s.flow.total - 1) * 100;
      search_gap += gap;
      search_worst = std::max(search_worst, gap);
      ++count;
    }
  }
  state.counters["instances"] = count;
  state.counters["proven"] = proven;
  state.counters["bound_gap_mean_pct"] = bound_gap / count;
  state.counters["search_gap_mean_pct"] = search_gap / count;
  state.counters["search_gap_worst_pct"] = search_worst;
}
BENCHMARK_CAPTURE(BM_RoutedGapSplit, one_region, "one-region")
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
BENCHMARK_CAPTURE(BM_RoutedGapSplit, two_regions, "two-regions")
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
BENCHMARK_CAPTURE(BM_RoutedGapSplit, four_regions, "four-regions")
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);

}  // namespace
}  // namespace meshplan
