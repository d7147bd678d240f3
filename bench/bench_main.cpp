// meshplan-bench: the pipeline planner on seeded what-if clusters, a development tool beside the
// product (README "Benchmarks"). It exits 1 when the optimal plan is ever slower than a feasible
// proportional split or a bound lies above its plan.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <iostream>
#include <sstream>

#include "bench/bench_runner.hpp"
#include "lib/cluster/catalog.hpp"
#include "lib/core/clock.hpp"
#include "lib/core/error.hpp"

namespace meshplan {
namespace {

struct BenchCommandOptions {
  bool quick = false;
  bool json = false;
  std::string sizes;
  std::string families;
  std::string models;
  std::string contexts;
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
or a bound lies above its plan.)";

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

int run(const BenchCommandOptions& o) {
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
  app.add_flag("--quick", o.quick, "Fewer sizes and models (a few seconds)");
  app.add_option("--sizes", o.sizes,
                 "Host counts, comma-separated (default 2,3,4,6,8,12,16,24,32,48,64)");
  app.add_option("--families", o.families, "Cluster families, comma-separated (default all)");
  app.add_option("--models", o.models, "Models, comma-separated (default every catalog model)");
  app.add_option("--contexts", o.contexts,
                 "Context lengths the instances cycle through (default 4096,32768)");
  app.add_option("--replicas", o.replicas, "Clusters per family, size and model (default 2)")
      ->check(CLI::PositiveNumber);
  app.add_option("--seed", o.seed, "Seed of the cluster generator")->capture_default_str();
  app.add_flag("--json", o.json, "Print the results as JSON, with every instance");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
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
