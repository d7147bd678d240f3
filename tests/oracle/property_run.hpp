// One generated case run end to end as the binary runs it, and the tally of many: plan in process
// on the work clock, write and read back the plan file, check it against the cluster, `emit all`,
// then the oracle's reading held to the plan. Shared by launch_property_test.cpp and the
// benchmark of the large set (tests/bench/launch_oracle_bench.cpp).
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "tests/oracle/cluster_generator.hpp"
#include "tests/oracle/launch_oracle.hpp"

namespace meshplan::oracle {

struct Outcome {
  enum Kind { kRefused, kInfeasible, kNoEngine, kChecked } kind = kChecked;
  std::string engine;
  std::vector<Violation> violations;
};

// The case of cluster file `yaml` with catalog model `model_name` ("" or "throughput" objective).
Outcome run_case(const std::string& yaml, const std::string& model_name,
                 const std::string& objective);
Outcome run_generated(const GenCase& c);

// The smallest case found, by dropping hosts, links and interfaces one at a time, that still
// breaks `rule` (at most `budget` runs).
GenCase shrink(GenCase c, const std::string& rule, int budget = 60);

struct Tally {
  int checked = 0, infeasible = 0, no_engine = 0, refused = 0;
  std::map<std::string, int> per_engine;
  std::map<std::string, int> per_rule;                           // clusters breaking each rule
  std::map<std::string, std::pair<GenCase, std::string>> first;  // rule -> first case, detail
  void add(const GenCase& c, const Outcome& o);
  // "N clusters checked, plans per engine: ..., R clusters/s" over `seconds`.
  std::string summary(double seconds) const;
  // Per rule broken: its count and its first case shrunk, as a fixture's YAML.
  std::string counterexamples() const;
};

// Seeds 0..latency-1 planned for latency, then `throughput` seeds from 1,000,000 for throughput.
Tally run_seeds(int latency, int throughput);

}  // namespace meshplan::oracle
