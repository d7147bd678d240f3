#include "bench/fleet_bench.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <set>

#include "bench/bounded_run.hpp"
#include "bench/fleet_families.hpp"
#include "lib/core/clock.hpp"
#include "lib/core/error.hpp"
#include "lib/core/text_table.hpp"
#include "lib/models/model_catalog.hpp"
#include "lib/plan/engines.hpp"
#include "solvers/problem/request_flags.hpp"
#include "solvers/serving/serving_planner.hpp"

namespace meshplan {
namespace {

// What `meshplan plan -c FLEET -m MODEL [--objective throughput]` asks, with every other flag at
// its default (app/plan_args.cpp): --strategy auto, the engine inferred from the hosts.
PlanRequest fleet_request(const std::string& objective) {
  PlanRequest request;
  request.strategy = std::string(name(StrategyKind::kAuto));
  request.engine = "";
  if (objective == "throughput") request.objective = objective;
  apply_serving_flags(ServingFlags{}, request);
  apply_request_flags(RequestFlags{}, request);
  return request;
}

// The child's work: the plan as `run_plan` makes it, summarised as JSON for the parent. A plan
// that cannot be made (ErrorKind::kFailed) is the answer "does not fit", not an error.
std::string plan_in_child(const Cluster& cluster, const Catalog& catalog, const ModelDesc& model,
                          const std::string& model_id, const std::string& objective) {
  SteadyClock clock;
  const PlanRequest request = fleet_request(objective);
  RoutedRequest routed;
  routed.model_id = model_id;
  routed.consider_in_auto = true;
  ojson out;
  try {
    const Plan plan = request.serving()
                          ? plan_serving(cluster, catalog, model, request, clock, routed)
                          : plan_model(cluster, catalog, model, request, clock);
    out["outcome"] = "planned";
    out["strategy"] = plan.strategy;
    out["used_hosts"] = plan_hosts(plan).size();
    out["replicas"] = std::max<size_t>(plan.replicas.size(), 1);
    out["tokens_per_s"] = plan.serving && objective == "throughput"
                              ? plan.serving->aggregate_tokens_per_s
                              : plan.predicted.decode_tokens_per_s;
  } catch (const Error& e) {
    out["outcome"] = e.kind() == ErrorKind::kFailed ? "does not fit" : "error";
    out["message"] = e.what();
  }
  return out.dump();
}

FleetRun run_one(const Cluster& cluster, const Catalog& catalog, const ModelDesc& model,
                 const std::string& model_id, const std::string& objective, double limit_s,
                 uint64_t memory_limit) {
  FleetRun run;
  run.family = cluster.name;
  run.hosts = static_cast<int>(cluster.hosts.size());
  run.objective = objective;
  run.model = model_id;
  const BoundedRun child =
      run_bounded([&] { return plan_in_child(cluster, catalog, model, model_id, objective); },
                  limit_s, memory_limit);
  run.seconds = child.seconds;
  run.peak_bytes = child.peak_bytes;
  if (child.status == BoundedRun::Status::kOverLimit) {
    run.outcome = FleetRun::Outcome::kOverLimit;
  } else if (child.status == BoundedRun::Status::kCrashed) {
    run.message = child.result.find("bad_alloc") == std::string::npos
                      ? child.result
                      : fmt::format("out of memory (the limit is {:.0f} MB)",
                                    static_cast<double>(memory_limit) / 1e6);
  } else {
    const ojson j = ojson::parse(child.result);
    const std::string outcome = j.at("outcome");
    if (outcome == "planned") {
      run.outcome = FleetRun::Outcome::kPlanned;
      run.strategy = j.at("strategy");
      run.used_hosts = j.at("used_hosts");
      run.replicas = j.at("replicas");
      run.tokens_per_s = j.at("tokens_per_s");
    } else {
      run.outcome =
          outcome == "does not fit" ? FleetRun::Outcome::kDoesNotFit : FleetRun::Outcome::kError;
      run.message = j.at("message");
    }
  }
  return run;
}

std::vector<FleetGrowth> growth_of(const FleetReport& report,
                                   const std::vector<std::string>& families) {
  std::vector<FleetGrowth> out;
  const int largest = *std::max_element(report.options.sizes.begin(), report.options.sizes.end());
  for (const std::string& family : families) {
    for (const std::string& objective : report.options.objectives) {
      for (const std::string& model : report.options.models) {
        FleetGrowth g{family, objective, model, {}, std::nullopt, largest, std::nullopt};
        std::vector<std::pair<int, double>> points;
        std::optional<double> at_256, at_largest;
        for (const FleetRun& r : report.runs) {
          if (r.family != family || r.objective != objective || r.model != model) continue;
          if (!r.finished()) continue;
          g.finished_sizes.push_back(r.hosts);
          points.push_back({r.hosts, r.seconds});
          if (r.hosts == 256) at_256 = r.seconds;
          if (r.hosts == largest) at_largest = r.seconds;
        }
        g.exponent = growth_exponent(points);
        if (largest > 256 && at_256 && at_largest)
          g.ratio_to_256 = *at_largest / std::max(*at_256, 1e-6);
        out.push_back(g);
      }
    }
  }
  return out;
}

// Three quarters of the machine's memory.
uint64_t default_memory_limit() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? static_cast<uint64_t>(pages) * static_cast<uint64_t>(page) / 4 * 3
                               : 0;
}

uint64_t own_peak_bytes() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<uint64_t>(std::max<long>(usage.ru_maxrss, 0)) * 1024;
}

std::string megabytes(uint64_t bytes) {
  return fmt::format("{:.0f}", static_cast<double>(bytes) / 1e6);
}

// The result column: what the plan gave, or why there is none.
std::string result_text(const FleetRun& r) {
  switch (r.outcome) {
    case FleetRun::Outcome::kPlanned:
      return fmt::format("{}{}, {} host{}, {:.1f} tok/s", r.strategy,
                         r.replicas > 1 ? fmt::format(" x {} replicas", r.replicas) : "",
                         r.used_hosts, r.used_hosts == 1 ? "" : "s", r.tokens_per_s);
    case FleetRun::Outcome::kDoesNotFit:
      return "does not fit";
    case FleetRun::Outcome::kOverLimit:
      return "-";
    case FleetRun::Outcome::kError:
      break;
  }
  return "error: " + r.message;
}

}  // namespace

std::optional<double> growth_exponent(const std::vector<std::pair<int, double>>& hosts_seconds) {
  std::set<int> distinct;
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (const auto& [hosts, seconds] : hosts_seconds) {
    distinct.insert(hosts);
    // A plan faster than the clock's grain counts as a microsecond, not as log(0).
    const double x = std::log(static_cast<double>(hosts)), y = std::log(std::max(seconds, 1e-6));
    sx += x;
    sy += y;
    sxx += x * x;
    sxy += x * y;
  }
  if (distinct.size() < 2) return std::nullopt;
  const double n = static_cast<double>(hosts_seconds.size());
  return (n * sxy - sx * sy) / (n * sxx - sx * sx);
}

FleetReport run_fleet_bench(const FleetOptions& options, const Catalog& catalog,
                            const std::function<void(const FleetRun&)>& done) {
  const auto began = std::chrono::steady_clock::now();
  FleetReport report;
  report.options = options;
  const std::vector<std::string>& families =
      options.families.empty() ? fleet_family_names() : options.families;
  if (options.sizes.empty()) throw input_error("the fleet benchmark needs at least one size");
  if (!(options.time_limit_s > 0))
    throw input_error("--time-limit {}: expected seconds above 0", options.time_limit_s);
  for (const std::string& objective : options.objectives)
    if (objective != "latency" && objective != "throughput")
      throw input_error("unknown objective \"{}\"; expected latency or throughput", objective);
  // Every name and size before the first plan: a typo should not wait for an hour of plans.
  const int smallest = *std::min_element(options.sizes.begin(), options.sizes.end());
  const int largest = *std::max_element(options.sizes.begin(), options.sizes.end());
  if (largest > kMaxFleetHosts)
    throw input_error("--sizes: a fleet takes at most {} hosts, got {}", kMaxFleetHosts, largest);
  for (const std::string& family : families)
    generate_fleet(family, smallest, options.seed, catalog);
  std::vector<ModelDesc> models;
  for (const std::string& m : options.models)
    models.push_back(ModelCatalog::builtin().resolve(m, ""));
  report.memory_limit_bytes =
      options.memory_limit_bytes > 0 ? options.memory_limit_bytes : default_memory_limit();
  for (const std::string& family : families) {
    for (int size : options.sizes) {
      const Cluster fleet = generate_fleet(family, size, options.seed, catalog);
      for (const std::string& objective : options.objectives) {
        for (size_t m = 0; m < models.size(); ++m) {
          report.runs.push_back(run_one(fleet, catalog, models[m], options.models[m], objective,
                                        options.time_limit_s, report.memory_limit_bytes));
          if (done) done(report.runs.back());
        }
      }
    }
  }
  report.growth = growth_of(report, families);
  report.parent_peak_bytes = own_peak_bytes();
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
  return report;
}

std::string outcome_name(FleetRun::Outcome outcome) {
  switch (outcome) {
    case FleetRun::Outcome::kPlanned:
      return "planned";
    case FleetRun::Outcome::kDoesNotFit:
      return "does not fit";
    case FleetRun::Outcome::kOverLimit:
      return "over the limit";
    case FleetRun::Outcome::kError:
      break;
  }
  return "error";
}

std::string fleet_run_line(const FleetRun& r) {
  const std::string time = r.outcome == FleetRun::Outcome::kOverLimit
                               ? fmt::format("over the limit ({:g} s)", r.seconds)
                               : fmt::format("{:.3f} s", r.seconds);
  return fmt::format("{} {} hosts {} {}: {}, {} MB, {}", r.family, r.hosts, r.objective, r.model,
                     time, megabytes(r.peak_bytes), result_text(r));
}

std::string render_fleet(const FleetReport& report) {
  using A = TextTable::Align;
  TextTable runs({"family", "hosts", "objective", "model", "time s", "peak MB", "result"},
                 {A::kLeft, A::kRight, A::kLeft, A::kLeft, A::kRight, A::kRight, A::kLeft});
  for (const FleetRun& r : report.runs) {
    const bool over = r.outcome == FleetRun::Outcome::kOverLimit;
    runs.add_row({r.family, std::to_string(r.hosts), r.objective, r.model,
                  over ? "over the limit" : fmt::format("{:.3f}", r.seconds),
                  (over ? ">" : "") + megabytes(r.peak_bytes), result_text(r)});
  }
  // time(largest) / time(256) only where the sizes have 256 and a larger one.
  const std::vector<int>& sizes = report.options.sizes;
  const int largest = sizes.empty() ? 0 : *std::max_element(sizes.begin(), sizes.end());
  const bool ratio = largest > 256 && std::count(sizes.begin(), sizes.end(), 256) > 0;
  std::vector<std::string> header = {"family", "objective", "model", "sizes finished", "exponent"};
  if (ratio) header.push_back(fmt::format("time {} / 256", largest));
  TextTable growth(header, {A::kLeft, A::kLeft, A::kLeft, A::kLeft, A::kRight, A::kRight});
  for (const FleetGrowth& g : report.growth) {
    std::vector<std::string> row = {
        g.family, g.objective, g.model,
        g.finished_sizes.empty() ? "-" : fmt::format("{}", fmt::join(g.finished_sizes, ",")),
        g.exponent ? fmt::format("{:.2f}", *g.exponent) : "-"};
    if (ratio) row.push_back(g.ratio_to_256 ? fmt::format("{:.1f}x", *g.ratio_to_256) : "-");
    growth.add_row(row);
  }
  return runs.render() + "\n\n" + growth.render() +
         fmt::format(
             "\n\n{} plans in {:.1f} s, each in a child process killed at {:g} s (address "
             "space at most {} MB). time = the plan alone, timed inside the child; peak MB = the "
             "child's peak resident memory (ru_maxrss), which starts from this program's {} MB "
             "(\">\": up to its kill). exponent = least-squares slope of log(time) against "
             "log(hosts) over the sizes that finished (planned or does not fit).\n",
             report.runs.size(), report.seconds, report.options.time_limit_s,
             megabytes(report.memory_limit_bytes), megabytes(report.parent_peak_bytes));
}

ojson fleet_to_json(const FleetReport& report) {
  ojson j;
  j["time_limit_s"] = json_number(report.options.time_limit_s);
  j["seed"] = report.options.seed;
  j["time"] = "the plan alone, measured inside its child process (steady clock)";
  ojson runs = ojson::array();
  for (const FleetRun& r : report.runs) {
    ojson x;
    x["family"] = r.family;
    x["hosts"] = r.hosts;
    x["objective"] = r.objective;
    x["model"] = r.model;
    x["outcome"] = outcome_name(r.outcome);
    x["seconds"] = r.finished() ? json_number(r.seconds) : ojson(nullptr);
    x["peak_mb"] = json_number(std::round(static_cast<double>(r.peak_bytes) / 1e6));
    if (r.outcome == FleetRun::Outcome::kPlanned) {
      x["strategy"] = r.strategy;
      x["used_hosts"] = r.used_hosts;
      x["replicas"] = r.replicas;
      x["tokens_per_s"] = json_number(r.tokens_per_s);
    }
    if (!r.message.empty()) x["message"] = r.message;
    runs.push_back(x);
  }
  ojson growth = ojson::array();
  for (const FleetGrowth& g : report.growth) {
    ojson x;
    x["family"] = g.family;
    x["objective"] = g.objective;
    x["model"] = g.model;
    x["finished_sizes"] = g.finished_sizes;
    x["exponent"] = g.exponent ? json_number(*g.exponent) : ojson(nullptr);
    x["largest"] = g.largest;
    x["ratio_to_256"] = g.ratio_to_256 ? json_number(*g.ratio_to_256) : ojson(nullptr);
    growth.push_back(x);
  }
  j["runs"] = runs;
  j["growth"] = growth;
  j["memory_limit_mb"] =
      json_number(std::round(static_cast<double>(report.memory_limit_bytes) / 1e6));
  j["parent_peak_mb"] =
      json_number(std::round(static_cast<double>(report.parent_peak_bytes) / 1e6));
  j["seconds"] = json_number(report.seconds);
  return j;
}

}  // namespace meshplan
