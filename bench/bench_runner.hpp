// `meshplan bench`: plans every (family, size, model) instance of the seeded cluster families with
// the optimal solver, compares it with the proportional split and the lower bound, and summarises
// per family (speed-up geometric mean and minimum, gap to the bound, solve times) and per size.
// Any instance where the optimal plan is slower than a feasible proportional split, or a bound
// above its plan, is counted as a violation.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "lib/cluster/catalog.hpp"
#include "lib/core/clock.hpp"
#include "lib/core/json_util.hpp"

namespace meshplan {

struct BenchOptions {
  std::vector<int> sizes = {2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64};
  std::vector<std::string> families;  // empty: every family
  std::vector<std::string> models;    // empty: every catalog model at every quantization
  std::vector<int64_t> contexts = {4096, 32768};
  int replicas = 2;  // clusters per (family, size, model), each with its own seed
  uint64_t seed = 1;
};

// Reduced sizes and models for a quick check (CTest).
BenchOptions quick_bench_options();

struct BenchInstance {
  std::string family;
  int hosts = 0;
  std::string model;
  int64_t context = 0;
  bool feasible = false;         // the optimal solver found a plan
  bool proportional_ok = false;  // the proportional split fits
  bool exact = false;
  double latency_s = 0;
  double proportional_s = 0;
  double bound_s = 0;
  double gap_percent = 0;
  double solve_ms = 0;
  int used_hosts = 0;
  std::string violation;  // empty when the checks hold
};

struct BenchRow {
  std::string name;  // family, or host count
  int instances = 0;
  int feasible = 0;
  int compared = 0;  // instances where the proportional split fits too
  int exact = 0;
  double speedup_geomean = 0;
  double speedup_min = 0;
  double speedup_max = 0;
  double gap_mean = 0;
  double gap_max = 0;
  double solve_median_ms = 0;
  double solve_max_ms = 0;
};

struct BenchReport {
  std::vector<BenchInstance> instances;
  std::vector<BenchRow> families;
  std::vector<BenchRow> sizes;
  BenchRow total;
  int violations = 0;
  double seconds = 0;
};

BenchReport run_bench(const BenchOptions& options, const Catalog& catalog, const Clock& clock);
std::string render_bench(const BenchReport& report);
ojson bench_to_json(const BenchReport& report);

}  // namespace meshplan
