// `meshplan-bench --routed`: the routed search on the seeded Helix-like families
// (bench/routed_families.hpp). Per family: the gap between each instance's flow and its upper
// bound (bound / flow - 1), its mean and its worst instance, and the search's wall time. Then the
// gap split on small instances: each solved exactly as one integer program (GLPK,
// bench/routed_exact.hpp), the bound's part (bound over the optimum) apart from the search's
// (the optimum over the flow found). With links that never bind (free_links), each instance is
// solved a second time with every link raised to what no host can fill: how much the links cost
// the search, and whether the bound sees them at all.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "lib/core/clock.hpp"
#include "lib/core/json_util.hpp"

namespace meshplan {

struct RoutedBenchOptions {
  std::vector<std::string> families;  // empty: every family
  // Hosts; each size at seeds 1 (60 layers) and 2 (80 layers).
  std::vector<int> sizes = {10, 24, 42, 64};
  double budget_s = 1.5;  // the search's budget of work (RoutedOptions::time_limit_s)
  // The gap split: instances of `split_hosts` hosts over `split_layers` layers, seeds 1 to
  // `split_seeds`; 0 seeds: none.
  int split_hosts = 4;
  int split_layers = 10;
  int split_seeds = 4;
  bool free_links = false;
};

struct RoutedBenchRun {
  std::string family;
  int hosts = 0;
  int layers = 0;
  uint64_t seed = 0;
  double flow = 0;
  double bound = 0;
  bool optimal = false;
  double seconds = 0;
  // With links that never bind (free_links only; 0 otherwise).
  double free_flow = 0;
  double free_bound = 0;
  double gap_pct() const { return gap_of(bound, flow); }
  double free_gap_pct() const { return gap_of(free_bound, free_flow); }
  static double gap_of(double bound, double flow) {
    return flow > 0 ? (bound / flow - 1) * 100 : 100;
  }
};

struct RoutedSplitRun {
  std::string family;
  uint64_t seed = 0;
  double optimum = 0;  // the integer program's, when it proved it
  bool proven = false;
  double flow = 0;   // the search's
  double bound = 0;  // the search's upper bound
};

struct RoutedFamilyRow {
  std::string family;
  int instances = 0;
  int proven = 0;
  double gap_mean_pct = 0;
  double gap_worst_pct = 0;
  std::string worst;  // "24 hosts, 80 layers, seed 224"
  double seconds_mean = 0;
  double seconds_worst = 0;
  // The split, over the instances the program proved.
  int split_proven = 0;
  double bound_over_optimum_pct = 0;  // mean
  double optimum_over_flow_pct = 0;   // mean
  double optimum_over_flow_worst_pct = 0;
  // With links that never bind (free_links): means over the instances of free flow / flow - 1
  // and of the gap; how many keep the bound they have on their own links.
  double free_over_flow_pct = 0;
  double free_gap_mean_pct = 0;
  int bound_unchanged = 0;
};

struct RoutedBenchReport {
  RoutedBenchOptions options;
  std::vector<RoutedBenchRun> runs;
  std::vector<RoutedSplitRun> splits;
  std::vector<RoutedFamilyRow> rows;
  double seconds = 0;
};

// Checks the families and sizes first (input errors), then solves every instance, calling `done`
// after each (progress for a caller that prints).
RoutedBenchReport run_routed_bench(const RoutedBenchOptions& options, const Clock& clock,
                                   const std::function<void(const RoutedBenchRun&)>& done = {});

std::string render_routed(const RoutedBenchReport& report);
ojson routed_to_json(const RoutedBenchReport& report);

}  // namespace meshplan
