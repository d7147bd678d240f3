// The launch oracle's large set: 20,000 generated clusters (and 2,000 throughput plans) planned,
// emitted and read back as in launch_property_test.cpp; reports clusters/s and the clusters that
// break each rule (build/tests/meshplan_benchmarks --benchmark_filter=LaunchOracle).
#include <benchmark/benchmark.h>

#include <string>

#include "tests/oracle/property_run.hpp"

namespace meshplan::launch_oracle_bench {
namespace {

void BM_LaunchOracle(benchmark::State& state) {
  const int latency = static_cast<int>(state.range(0));
  oracle::Tally tally;
  for (auto _ : state)
    tally = oracle::run_seeds(latency, latency / 10);
  state.counters["clusters/s"] = benchmark::Counter(
      static_cast<double>(tally.checked) * static_cast<double>(state.iterations()),
      benchmark::Counter::kIsRate);
  state.counters["infeasible"] = tally.infeasible;
  int broken = 0;
  for (const auto& [rule, count] : tally.per_rule)
    broken += count;
  state.counters["rule-breaks"] = broken;
  std::string rules;
  for (const auto& [rule, count] : tally.per_rule)
    rules += rule + " " + std::to_string(count) + "; ";
  state.SetLabel(rules);
}
BENCHMARK(BM_LaunchOracle)->Arg(20000)->Iterations(1)->Unit(benchmark::kSecond);

}  // namespace
}  // namespace meshplan::launch_oracle_bench
