// `meshplan-bench --fleet`: how planning time and memory grow with the fleet (issue 51). Plans
// every (family, size, objective, model) of the seeded fleets (bench/fleet_families.hpp) as
// `meshplan plan -c FLEET -m MODEL` does with its defaults (--strategy auto; latency is the plain
// plan, throughput adds --objective throughput), each plan in a forked child killed at the time
// limit (bench/bounded_run.hpp). Per plan: its time, the child's peak memory and what it gave;
// per (family, objective, model): the growth exponent, the least-squares slope of log(time)
// against log(hosts) over the sizes that finished.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "lib/cluster/catalog.hpp"
#include "lib/core/json_util.hpp"

namespace meshplan {

struct FleetOptions {
  std::vector<int> sizes = {64, 256, 1024, 4096};
  std::vector<std::string> families;  // empty: every fleet family
  std::vector<std::string> models = {"llama-3.1-405b-4bit", "llama-3.1-405b-8bit",
                                     "deepseek-v3.1-4bit"};
  std::vector<std::string> objectives = {"latency", "throughput"};
  double time_limit_s = 60;  // per plan, wall time of its child
  // Per plan, the child's address space: a plan on thousands of hosts can grow by gigabytes a
  // second, and the machine's other work should not pay for it. 0: three quarters of this
  // machine's memory.
  uint64_t memory_limit_bytes = 0;
  uint64_t seed = 1;
};

struct FleetRun {
  enum class Outcome { kPlanned, kDoesNotFit, kOverLimit, kError };
  std::string family;
  int hosts = 0;
  std::string objective;
  std::string model;
  Outcome outcome = Outcome::kError;
  double seconds = 0;       // the plan's time; the limit when over it
  uint64_t peak_bytes = 0;  // the child's peak resident memory (up to its kill when over)
  // Planned: the plan's strategy, the hosts it uses, its replicas (1 without) and its tokens/s
  // (decode tokens/s of one stream for latency, aggregate over every stream for throughput).
  std::string strategy;
  int used_hosts = 0;
  int replicas = 1;
  double tokens_per_s = 0;
  std::string message;  // does not fit, error: why
  // A time that counts: the planner ran to its end (a plan, or the answer that none fits).
  bool finished() const { return outcome == Outcome::kPlanned || outcome == Outcome::kDoesNotFit; }
};

struct FleetGrowth {
  std::string family;
  std::string objective;
  std::string model;
  std::vector<int> finished_sizes;
  std::optional<double> exponent;  // with two sizes or more finished
  // time(largest size) / time(256 hosts), when both finished and the largest is above 256.
  int largest = 0;
  std::optional<double> ratio_to_256;
};

struct FleetReport {
  FleetOptions options;
  std::vector<FleetRun> runs;
  std::vector<FleetGrowth> growth;
  uint64_t memory_limit_bytes = 0;  // what each child had
  uint64_t parent_peak_bytes = 0;   // this process's peak: where every child's memory starts
  double seconds = 0;
};

// Checks every family, model, objective and size first (input errors), then runs the matrix,
// calling `done` after each plan (progress for a caller that prints).
FleetReport run_fleet_bench(const FleetOptions& options, const Catalog& catalog,
                            const std::function<void(const FleetRun&)>& done = {});

// The least-squares slope of log(seconds) against log(hosts); nullopt with fewer than two
// distinct host counts.
std::optional<double> growth_exponent(const std::vector<std::pair<int, double>>& hosts_seconds);

std::string outcome_name(FleetRun::Outcome outcome);
// One line per plan for progress: "minis 256 hosts latency llama-3.1-405b-4bit: 4.12 s, 490 MB".
std::string fleet_run_line(const FleetRun& run);
std::string render_fleet(const FleetReport& report);
ojson fleet_to_json(const FleetReport& report);

}  // namespace meshplan
