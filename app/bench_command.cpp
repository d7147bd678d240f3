#include <memory>

#include "app/commands.hpp"
#include "lib/core/error.hpp"
#include "solvers/bench_runner.hpp"

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
  meshplan bench
  meshplan bench --quick
  meshplan bench --sizes 12,64 --families tb5-mesh,10gbe-switch --models deepseek-v3.1-4bit --replicas 5
  meshplan bench --seed 7 --json

Generates clusters of eight families (homogeneous, two-tier, long-tail, fits-on-one, tb5-mesh,
daisy-chain, 10gbe-switch, mixed-islands) at each size, plans every catalog model on them with
the optimal solver (every catalog model at every quantization by default), and prints per family and per size: the predicted speed-up over the
memory-proportional split (geometric mean, minimum, maximum), the gap to the lower bound and the
solve times. Exits with 1 if the optimal plan is ever slower than a feasible proportional split
or a bound lies above its plan.)";

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

int run_bench_command(const BenchCommandOptions& o, AppContext& ctx) {
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
  ctx.console.info("benchmarking the pipeline planner ...");
  BenchReport report = run_bench(options, ctx.catalog, ctx.clock);
  if (o.json)
    ctx.console.data(bench_to_json(report).dump(2) + "\n");
  else
    ctx.console.data(render_bench(report));
  return report.violations ? 1 : 0;
}

}  // namespace

void add_bench_command(CLI::App& app, AppContext& ctx) {
  auto o = std::make_shared<BenchCommandOptions>();
  CLI::App* sub = app.add_subcommand("bench", kBenchHelp);
  sub->add_flag("--quick", o->quick, "Fewer sizes and models (a few seconds)");
  sub->add_option("--sizes", o->sizes,
                  "Host counts, comma-separated (default 2,3,4,6,8,12,16,24,32,48,64)");
  sub->add_option("--families", o->families, "Cluster families, comma-separated (default all)");
  sub->add_option("--models", o->models, "Models, comma-separated (default every catalog model)");
  sub->add_option("--contexts", o->contexts,
                  "Context lengths the instances cycle through (default 4096,32768)");
  sub->add_option("--replicas", o->replicas, "Clusters per family, size and model (default 2)")
      ->check(CLI::PositiveNumber);
  sub->add_option("--seed", o->seed, "Seed of the cluster generator")->capture_default_str();
  sub->add_flag("--json", o->json, "Print the results as JSON, with every instance");
  sub->callback([o, &ctx] { ctx.run = [o, &ctx] { return run_bench_command(*o, ctx); }; });
}

}  // namespace meshplan
