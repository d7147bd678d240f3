#include "tests/oracle/property_run.hpp"

#include <fmt/format.h>

#include <set>

#include "deploy/emit/emit_all.hpp"
#include "deploy/layout/plan_match.hpp"
#include "lib/core/clock.hpp"
#include "lib/core/error.hpp"
#include "lib/core/file_system.hpp"
#include "lib/models/model_loader.hpp"
#include "lib/plan/plan_json.hpp"
#include "solvers/serving/serving_planner.hpp"
#include "solvers/strategy/strategy_planner.hpp"
#include "tests/oracle/plan_comparison.hpp"

namespace meshplan::oracle {
namespace {

// One clock reading counts 1 ms, as MESHPLAN_WORK_CLOCK=1000 makes the binary's searches spend:
// the searches with a deadline (routed serving's) stop after a small fixed budget, so that
// hundreds of throughput plans fit in the test's time, the same plan on any machine.
constexpr double kWorkTick_s = 1e-3;

const ModelDesc& model_named(const std::string& name) {
  static std::map<std::string, ModelDesc> models;
  auto it = models.find(name);
  if (it == models.end()) {
    RealFileSystem fs;
    it = models.emplace(name, load_model(name, "", fs)).first;
  }
  return it->second;
}

// The plan as `meshplan plan` makes it with --strategy auto and no --engine (the engine inferred
// from the hosts), through plan_serving for --objective throughput (app/plan_command.cpp).
Plan plan_case(const Cluster& cluster, const ModelDesc& model, const std::string& model_name,
               const std::string& objective) {
  WorkClock clock(kWorkTick_s);
  PlanRequest request;
  request.strategy = name(StrategyKind::kAuto);
  request.engine = "";
  request.objective = objective;
  if (!request.serving()) return plan_model(cluster, Catalog::builtin(), model, request, clock);
  RoutedRequest routed;
  routed.model_id = model_name;
  routed.consider_in_auto = true;
  return plan_serving(cluster, Catalog::builtin(), model, request, clock, routed);
}

// `emit all` as app/emit_command.cpp runs it: the plan's check against the cluster, the input
// with an ssh user (so that Ray's file is written too).
std::map<std::string, std::string> emit_case(const Cluster& cluster,
                                             const std::optional<PlanRanks>& ranks) {
  TopologyContext topo(cluster, Catalog::builtin());
  CheckReport report = check_plan_against_cluster(topo, "auto", ranks);
  LaunchOptions launch;
  launch.user = "oracle";
  EmitInput input{cluster, topo, report, ranks, "auto", {}, {}, launch};
  return emit_all(input);
}

}  // namespace

Outcome run_case(const std::string& yaml, const std::string& model_name,
                 const std::string& objective) {
  Outcome out;
  Cluster cluster;
  try {
    cluster = load_case_cluster(yaml, Catalog::builtin());
  } catch (const Error&) {
    out.kind = Outcome::kRefused;
    return out;
  }
  const ModelDesc& model = model_named(model_name);
  Plan plan;
  try {
    plan = plan_case(cluster, model, model_name, objective);
  } catch (const Error& e) {
    if (e.kind() == ErrorKind::kFailed) {
      out.kind = Outcome::kInfeasible;
      return out;
    }
    out.violations.push_back({"plan-error", e.what()});
    return out;
  }
  out.engine = plan.engine;
  if (plan.engine.empty()) {
    out.kind = Outcome::kNoEngine;
    return out;
  }
  const std::optional<PlanRanks> ranks =
      read_plan_ranks(parse_document(write_plan_json(plan, model), "plan.json"));
  std::map<std::string, std::string> files;
  try {
    files = emit_case(cluster, ranks);
  } catch (const Error& e) {
    out.violations.push_back({"emit-all", e.what()});
    return out;
  }
  const OracleReading reading = read_launches(files, cluster, model);
  out.violations = reading.violations;
  for (Violation& v : compare_with_plan(reading, *ranks, cluster))
    out.violations.push_back(v);
  if (reading.launches.empty() && !ranks->routing)
    out.violations.push_back({"no-launch-read", "emit all wrote no launch the oracle reads"});
  return out;
}

Outcome run_generated(const GenCase& c) {
  return run_case(to_yaml(c), c.model, c.objective);
}

GenCase shrink(GenCase c, const std::string& rule, int budget) {
  auto breaks = [&rule](const Outcome& o) {
    for (const Violation& v : o.violations)
      if (v.rule == rule) return true;
    return false;
  };
  bool smaller = true;
  while (smaller && budget > 0) {
    smaller = false;
    for (const GenCase& s : shrink_candidates(c)) {
      if (--budget < 0) break;
      if (breaks(run_generated(s))) {
        c = s;
        smaller = true;
        break;
      }
    }
  }
  return c;
}

void Tally::add(const GenCase& c, const Outcome& o) {
  ++checked;
  if (o.kind == Outcome::kRefused) ++refused;
  if (o.kind == Outcome::kInfeasible) ++infeasible;
  if (o.kind == Outcome::kNoEngine) ++no_engine;
  if (!o.engine.empty()) ++per_engine[o.engine + (c.objective.empty() ? "" : " (throughput)")];
  std::set<std::string> rules;
  for (const Violation& v : o.violations)
    if (rules.insert(v.rule).second) {
      ++per_rule[v.rule];
      first.emplace(v.rule, std::pair{c, v.detail});
    }
}

std::string Tally::summary(double seconds) const {
  std::string engines;
  for (const auto& [engine, count] : per_engine)
    engines += fmt::format(" {} {};", engine, count);
  return fmt::format(
      "{} clusters checked, plans per engine:{} infeasible {}, no engine {}, refused by the "
      "loader {}; {:.1f} clusters/s",
      checked, engines, infeasible, no_engine, refused, checked / std::max(seconds, 1e-9));
}

std::string Tally::counterexamples() const {
  std::string text;
  for (const auto& [rule, count] : per_rule) {
    const auto& [c, detail] = first.at(rule);
    const GenCase small = shrink(c, rule);
    std::string shown = detail;
    for (const Violation& v : run_generated(small).violations)
      if (v.rule == rule) shown = v.detail;
    text += fmt::format("\n== rule {}: {} clusters; the first (seed {}), shrunk: {}\n{}", rule,
                        count, c.seed, shown, to_yaml(small));
  }
  return text;
}

Tally run_seeds(int latency, int throughput) {
  Tally tally;
  for (int seed = 0; seed < latency; ++seed) {
    const GenCase c = generate_case(static_cast<uint64_t>(seed), "");
    tally.add(c, run_generated(c));
  }
  for (int seed = 0; seed < throughput; ++seed) {
    const GenCase c = generate_case(1000000u + static_cast<uint64_t>(seed), "throughput");
    tally.add(c, run_generated(c));
  }
  return tally;
}

}  // namespace meshplan::oracle
