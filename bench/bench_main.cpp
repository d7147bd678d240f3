// meshplan-bench: the pipeline planner on seeded what-if clusters, a development tool beside the
// product (README "Benchmarks"). It exits 1 when the optimal plan is ever slower than a feasible
// proportional split or a bound lies above its plan. With --fleet it times whole plans on fleets
// of 64 to thousands of hosts instead (bench/fleet_bench.hpp); with --routed it measures the
// routed search's gap to its bound on the Helix-like families (bench/routed_bench.hpp).
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <sstream>
#include <tuple>
#include <utility>

#include "bench/bench_runner.hpp"
#include "bench/fleet_bench.hpp"
#include "bench/routed_bench.hpp"
#include "lib/cluster/catalog.hpp"
#include "lib/core/clock.hpp"
#include "lib/core/error.hpp"

namespace meshplan {
namespace {

struct BenchCommandOptions {
  bool quick = false;
  bool json = false;
  bool fleet = false;
  bool routed = false;
  std::string budget = "1.5";
  std::string split = "4x10";
  int split_seeds = 4;
  bool free_links = false;
  std::string sizes;
  std::string families;
  std::string models;
  std::string contexts;
  std::string objectives;
  std::string time_limit = "60";
  uint64_t seed = 1;
  int replicas = 0;
};

constexpr const char* kBenchHelp = R"(Benchmark the pipeline planner on seeded what-if clusters.

Examples:
  meshplan-bench
  meshplan-bench --quick
  meshplan-bench --sizes 12,64 --families tb5-mesh,10gbe-switch --models deepseek-v3.1-4bit --replicas 5
  meshplan-bench --seed 7 --json

Generates clusters of eight families (homogeneous, two-tier, long-tail, fits-on-one, tb5-mesh,
daisy-chain, 10gbe-switch, mixed-islands) at each size, plans every catalog model on them with
the optimal solver (every catalog model at every quantization by default), and prints per family and per size: the predicted speed-up over the
memory-proportional split (geometric mean, minimum, maximum), the gap to the lower bound and the
solve times. Exits with 1 if the optimal plan is ever slower than a feasible proportional split
or a bound lies above its plan.

Fleets (--fleet): how planning time and memory grow with the cluster. Examples:
  meshplan-bench --fleet
  meshplan-bench --fleet --sizes 64,256,1024 --time-limit 30
  meshplan-bench --fleet --sizes 8 --families minis --models llama-3.1-405b-4bit --time-limit 20
  meshplan-bench --fleet --families h100-nodes --objectives throughput --json

Generates seeded fleets of four families (minis: Mac minis on a 10 GbE switch; h100-nodes: nodes
of 8 H100 on InfiniBand; macs-islands: three kinds of Mac in Thunderbolt 5 islands of 2-4;
mixed-6: those Macs and nodes of 1 H200, 4 A100 and 8 H100) at each size (default
64,256,1024,4096), and plans each model (default llama-3.1-405b-4bit, llama-3.1-405b-8bit,
deepseek-v3.1-4bit) for each objective as `meshplan plan -c FLEET -m MODEL` does (latency: the
default plan; throughput: --objective throughput; --strategy auto both). Every plan runs in a
child process that is killed (SIGKILL) when it passes --time-limit seconds of wall time and is
then reported as "over the limit"; its address space is limited to three quarters of this
machine's memory. Time is the plan alone, measured inside the child (steady clock) and sent
back through a pipe; peak MB is the child's peak resident memory (ru_maxrss from wait4). Per
family, objective and model it prints the growth exponent (the least-squares slope of log(time)
against log(hosts) over the sizes that finished) and time(largest) / time(256). A model that
does not fit a fleet is a result, not an error; the exit code is 0.

Routed serving (--routed): how close the routed search comes to its upper bound. Examples:
  meshplan-bench --routed
  meshplan-bench --routed --families four-regions --sizes 10,24 --json
  meshplan-bench --routed --budget 6
  meshplan-bench --routed --families four-regions --sizes 10 --split 6x12 --split-seeds 2
  meshplan-bench --routed --families two-regions,four-regions --split-seeds 0 --free-links

Solves seeded Helix-like instances of three families (one-region: GPU nodes of 3 to 7 kinds on
fast links; two-regions, four-regions: the same joined by links of 300 to 2,000 tokens/s) at each
size (default 10,24,42,64), seeds 1 (60 layers) and 2 (80 layers), as `plan --strategy routed`
searches a count of streams (a budget of --budget seconds of work, counted in steps, so the
results are the same on any machine). Per instance: the flow, the upper bound, the gap between
them and the wall time; per family: the mean and worst gap (naming the worst instance) and the
mean and worst time. Then the gap split: instances of --split hosts over layers (default 4x10,
seeds 1 to --split-seeds, default 4; 0: no split) solved exactly as one integer program (GLPK,
at most 200,000 branch-and-bound nodes each: seconds at 4x10, minutes at 6x12), the bound's part
(bound over optimum) apart from the search's (optimum over the flow found), over the instances
the program proves. With --free-links each instance is also solved with every link raised to what
no host carries: per family, how much more the search then carries, its gap, and on how many
instances the bound stays the same (a bound blind to what crossing slow links costs).)";

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');)
    if (!item.empty()) out.push_back(item);
  return out;
}

std::vector<int64_t> parse_numbers(const std::string& text, const char* option) {
  std::vector<int64_t> out;
  for (const std::string& item : split_list(text)) {
    try {
      size_t used = 0;
      long long v = std::stoll(item, &used);
      if (used != item.size() || v <= 0) throw std::invalid_argument(item);
      out.push_back(v);
    } catch (const std::exception&) {
      throw input_error("{} {}: expected positive numbers separated by commas, e.g. 2,8,64", option,
                        text);
    }
  }
  return out;
}

// Seconds above 0 from `text`, or an input error naming `option` and the form expected.
double parse_seconds(const std::string& text, const char* option, const char* expected) {
  try {
    size_t used = 0;
    const double v = std::stod(text, &used);
    if (used != text.size() || !(v > 0) || !std::isfinite(v)) throw std::invalid_argument(text);
    return v;
  } catch (const std::exception&) {
    throw input_error("{} {}: expected {}", option, text, expected);
  }
}

// "HOSTSxLAYERS" (6x12) as the split's hosts and layers.
std::pair<int, int> parse_split(const std::string& text) {
  auto digits = [](const std::string& t) {
    return !t.empty() && t.size() < 6 &&
           std::all_of(t.begin(), t.end(), [](unsigned char c) { return std::isdigit(c); });
  };
  const size_t x = text.find('x');
  if (x == std::string::npos || !digits(text.substr(0, x)) || !digits(text.substr(x + 1)))
    throw input_error("--split {}: expected HOSTSxLAYERS, e.g. 6x12", text);
  return {std::stoi(text.substr(0, x)), std::stoi(text.substr(x + 1))};
}

std::vector<int> parse_sizes(const std::string& text) {
  std::vector<int> out;
  for (int64_t v : parse_numbers(text, "--sizes"))
    out.push_back(static_cast<int>(std::min<int64_t>(v, 1 << 30)));
  return out;
}

int run_fleet(const BenchCommandOptions& o) {
  FleetOptions options;
  options.seed = o.seed;
  options.time_limit_s = parse_seconds(o.time_limit, "--time-limit", "seconds above 0, e.g. 30");
  if (!o.sizes.empty()) options.sizes = parse_sizes(o.sizes);
  if (!o.families.empty()) options.families = split_list(o.families);
  if (!o.models.empty()) options.models = split_list(o.models);
  if (!o.objectives.empty()) options.objectives = split_list(o.objectives);
  // Progress on stderr, one line a plan, once the names and sizes have been checked.
  bool first = true;
  FleetReport report = run_fleet_bench(options, Catalog::builtin(), [&](const FleetRun& r) {
    if (first) std::fputs("benchmarking plans on fleets ...\n", stderr);
    first = false;
    std::fprintf(stderr, "  %s\n", fleet_run_line(r).c_str());
  });
  std::string text = o.json ? fleet_to_json(report).dump(2) + "\n" : render_fleet(report);
  std::fwrite(text.data(), 1, text.size(), stdout);
  return 0;
}

int run_routed(const BenchCommandOptions& o) {
  RoutedBenchOptions options;
  options.budget_s = parse_seconds(o.budget, "--budget", "seconds of work above 0, e.g. 1.5");
  if (!o.sizes.empty()) options.sizes = parse_sizes(o.sizes);
  if (!o.families.empty()) options.families = split_list(o.families);
  std::tie(options.split_hosts, options.split_layers) = parse_split(o.split);
  options.split_seeds = o.split_seeds;
  options.free_links = o.free_links;
  SteadyClock clock;
  bool first = true;
  RoutedBenchReport report = run_routed_bench(options, clock, [&](const RoutedBenchRun& r) {
    if (first) std::fputs("benchmarking the routed search ...\n", stderr);
    first = false;
    std::fprintf(stderr,
                 "  %s %d hosts, %d layers, seed %llu: %.1f tokens/s, gap %.2f %%, %.3f s\n",
                 r.family.c_str(), r.hosts, r.layers, static_cast<unsigned long long>(r.seed),
                 r.flow, r.gap_pct(), r.seconds);
  });
  std::string text = o.json ? routed_to_json(report).dump(2) + "\n" : render_routed(report);
  std::fwrite(text.data(), 1, text.size(), stdout);
  return 0;
}

int run(const BenchCommandOptions& o) {
  if (o.fleet) return run_fleet(o);
  if (o.routed) return run_routed(o);
  SteadyClock clock;
  BenchOptions options = o.quick ? quick_bench_options() : BenchOptions{};
  options.seed = o.seed;
  if (o.replicas > 0) options.replicas = o.replicas;
  if (!o.sizes.empty()) {
    options.sizes.clear();
    for (int64_t v : parse_numbers(o.sizes, "--sizes"))
      options.sizes.push_back(static_cast<int>(v));
  }
  if (!o.contexts.empty()) options.contexts = parse_numbers(o.contexts, "--contexts");
  if (!o.families.empty()) options.families = split_list(o.families);
  if (!o.models.empty()) options.models = split_list(o.models);
  std::fputs("benchmarking the pipeline planner ...\n", stderr);
  BenchReport report = run_bench(options, Catalog::builtin(), clock);
  std::string text = o.json ? bench_to_json(report).dump(2) + "\n" : render_bench(report);
  std::fwrite(text.data(), 1, text.size(), stdout);
  return report.violations ? 1 : 0;
}

}  // namespace
}  // namespace meshplan

int main(int argc, char** argv) {
  using namespace meshplan;
  BenchCommandOptions o;
  CLI::App app(kBenchHelp, "meshplan-bench");
  CLI::Option* fleet =
      app.add_flag("--fleet", o.fleet,
                   "Time whole plans on fleets of 64 to 4,096 hosts instead (see Fleets above)");
  CLI::Option* routed = app.add_flag(
      "--routed", o.routed,
      "Measure the routed search's gap to its bound on the Helix-like families instead (see "
      "Routed serving above)");
  fleet->excludes(routed);
  CLI::Option* quick = app.add_flag("--quick", o.quick, "Fewer sizes and models (a few seconds)");
  app.add_option("--sizes", o.sizes,
                 "Host counts, comma-separated (default 2,3,4,6,8,12,16,24,32,48,64; with "
                 "--fleet 64,256,1024,4096; with --routed 10,24,42,64)");
  app.add_option("--families", o.families,
                 "Cluster families (with --fleet: fleet families), comma-separated (default all)");
  CLI::Option* models =
      app.add_option("--models", o.models,
                     "Models, comma-separated (default every catalog model; with --fleet "
                     "llama-3.1-405b-4bit,llama-3.1-405b-8bit,deepseek-v3.1-4bit)");
  CLI::Option* contexts = app.add_option(
      "--contexts", o.contexts, "Context lengths the instances cycle through (default 4096,32768)");
  CLI::Option* replicas =
      app.add_option("--replicas", o.replicas, "Clusters per family, size and model (default 2)")
          ->check(CLI::PositiveNumber);
  CLI::Option* objectives =
      app.add_option("--objectives", o.objectives,
                     "--fleet: objectives, comma-separated: latency, throughput (default both)");
  CLI::Option* limit = app.add_option("--time-limit", o.time_limit,
                                      "--fleet: seconds of wall time each plan may take before "
                                      "its process is killed")
                           ->type_name("SECONDS")
                           ->capture_default_str();
  CLI::Option* budget =
      app.add_option("--budget", o.budget, "--routed: the search's budget, in seconds of work")
          ->type_name("SECONDS")
          ->capture_default_str();
  CLI::Option* split = app.add_option("--split", o.split,
                                      "--routed: hosts and layers of the gap split's instances, "
                                      "solved exactly")
                           ->type_name("HOSTSxLAYERS")
                           ->capture_default_str();
  CLI::Option* split_seeds =
      app.add_option("--split-seeds", o.split_seeds,
                     "--routed: how many split instances a family (seeds 1 to N; 0: no split)")
          ->type_name("N")
          ->capture_default_str();
  CLI::Option* free_links =
      app.add_flag("--free-links", o.free_links,
                   "--routed: also solve each instance with links that never bind (what the "
                   "links cost, and whether the bound sees it)");
  CLI::Option* seed =
      app.add_option("--seed", o.seed, "Seed of the cluster generator")->capture_default_str();
  app.add_flag("--json", o.json, "Print the results as JSON, with every instance");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  // An option of another benchmark would be silently ignored: say so instead.
  enum Mode { kPipeline = 1, kFleet = 2, kRouted = 4 };
  const int mode = o.fleet ? kFleet : o.routed ? kRouted : kPipeline;
  const std::vector<std::pair<CLI::Option*, int>> modes = {{quick, kPipeline},
                                                           {contexts, kPipeline},
                                                           {replicas, kPipeline},
                                                           {models, kPipeline | kFleet},
                                                           {seed, kPipeline | kFleet},
                                                           {objectives, kFleet},
                                                           {limit, kFleet},
                                                           {budget, kRouted},
                                                           {split, kRouted},
                                                           {split_seeds, kRouted},
                                                           {free_links, kRouted}};
  for (const auto& [option, allowed] : modes)
    if (option->count() > 0 && !(allowed & mode)) {
      const char* of = allowed == kFleet    ? "is for --fleet"
                       : allowed == kRouted ? "is for --routed"
                       : mode == kRouted    ? "is not for --routed"
                                            : "is not for --fleet";
      std::fprintf(stderr, "meshplan-bench: %s %s\n", option->get_name().c_str(), of);
      return 2;
    }
  try {
    return run(o);
  } catch (const Error& e) {
    std::fprintf(stderr, "meshplan-bench: %s\n", e.what());
    return exit_code(e.kind());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "meshplan-bench: internal error: %s\n", e.what());
    return 70;
  }
}
