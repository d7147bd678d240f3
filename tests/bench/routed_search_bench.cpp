// Routed serving layouts (solvers/routed_search.hpp) on the cluster shapes of the Helix paper's
// evaluation: 10 hosts of two kinds over 60 layers (4 + 6, as its LLaMA-30B cluster) and 42 hosts
// of 7 kinds over 80 layers. Tables fall roughly as 1/k with bumps, so that they are not monotone
// (measured tables are not), and end where memory ends. Counters: the flow, the upper bound, the
// gap between them, whether the layout is proven optimal, and the baselines' flows.
#include <benchmark/benchmark.h>

#include <cmath>

#include "solvers/routed_search.hpp"

namespace meshplan {
namespace {

RoutedHost kind(const std::string& name, double speed, int max_layers, int seed) {
  RoutedHost h;
  h.name = name;
  for (int k = 1; k <= max_layers; ++k)
    h.table.push_back(std::round(speed / (k + 0.5) * (1 + 0.06 * std::sin(k * 1.7 + seed))));
  h.head_s = 0.02 / speed;
  h.max_with_first = h.max_with_last = max_layers - 1;
  h.max_with_both = max_layers - 2;
  return h;
}

RoutedInstance cluster(int layers, const std::vector<std::pair<RoutedHost, int>>& kinds) {
  RoutedInstance in;
  in.layers = layers;
  for (const auto& [h, count] : kinds)
    for (int i = 0; i < count; ++i) {
      in.hosts.push_back(h);
      in.hosts.back().name += "-" + std::to_string(i);
    }
  const size_t n = in.hosts.size();
  in.link.assign(n, std::vector<double>(n, 1e5));  // a switch: links far above the hosts
  return in;
}

void report(benchmark::State& state, const RoutedSolution& s) {
  state.counters["flow"] = s.flow.total;
  state.counters["bound"] = s.bound.tokens_per_s;
  state.counters["gap_pct"] = (s.bound.tokens_per_s / s.flow.total - 1) * 100;
  state.counters["optimal"] = s.optimal;
  state.counters["pipeline"] = s.pipeline.tokens_per_s;
  state.counters["replicas"] = s.replicas.tokens_per_s;
  state.counters["nodes"] = static_cast<double>(s.nodes);
}

void BM_Routed10HostsOf2Kinds60Layers(benchmark::State& state) {
  RoutedInstance in = cluster(60, {{kind("l4", 2600, 20, 1), 4}, {kind("t4", 1300, 12, 2), 6}});
  RoutedOptions options;
  options.time_limit_s = 2;
  RoutedSolution s;
  for (auto _ : state)
    s = solve_routed(in, options);
  report(state, s);
}
BENCHMARK(BM_Routed10HostsOf2Kinds60Layers)->Unit(benchmark::kMillisecond)->Iterations(1);

void BM_Routed42HostsOf7Kinds80Layers(benchmark::State& state) {
  RoutedInstance in = cluster(80, {{kind("a100", 9000, 40, 1), 4},
                                   {kind("l40s", 6000, 24, 2), 4},
                                   {kind("a6000", 4500, 24, 3), 6},
                                   {kind("l4", 2600, 12, 4), 6},
                                   {kind("a10", 2400, 12, 5), 6},
                                   {kind("t4", 1300, 8, 6), 8},
                                   {kind("v100", 2000, 8, 7), 8}});
  RoutedOptions options;
  options.time_limit_s = 1.5;
  RoutedSolution s;
  for (auto _ : state)
    s = solve_routed(in, options);
  report(state, s);
}
BENCHMARK(BM_Routed42HostsOf7Kinds80Layers)->Unit(benchmark::kMillisecond)->Iterations(1);

}  // namespace
}  // namespace meshplan
