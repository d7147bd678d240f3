#include <memory>

#include "app/commands.hpp"
#include "app/topology_args.hpp"
#include "lib/core/error.hpp"
#include "lib/emit/emit_formats.hpp"

namespace meshplan {
namespace {

struct EmitArgs {
  std::string format;
  std::string cluster;
  std::string plan;
  std::string backend = "auto";
  std::vector<std::string> envs;
  std::string output;
  MlxEnvOptions env_options;
};

// The examples, the generated format list, then how the backend is chosen.
std::string emit_help() {
  return std::string(R"(Write one artifact for the cluster (and a plan).

Examples:
  meshplan emit mlx-hostfile -c cluster.json -o hosts.json
  meshplan emit mlx-hostfile -c cluster.json --backend ring --env MLX_METAL_FAST_SYNCH=1
  meshplan emit mlx-env -c cluster.json --backend jaccl
  meshplan emit mlx-hostfile -c cluster.json --plan plan.json
  meshplan emit teardown -c cluster.json

)") + emit_formats_help() +
         R"(--backend auto picks the first valid of jaccl, jaccl-ring, ring, ethernet; an invalid backend
exits 1 with its problems. --plan uses the plan's hosts in its rank order.)";
}

int run_emit(const EmitArgs& a, AppContext& ctx) {
  const EmitFormat* format = find_emit_format(a.format);
  if (!format) {
    throw input_error("unknown format \"{}\"; expected one of: {}", a.format, emit_format_names());
  }
  validate_emit_options(a.envs, a.env_options);
  Cluster cluster = read_cluster_arg(ctx, a.cluster);
  auto plan = read_plan_arg(ctx, a.plan);
  TopologyContext topo(cluster, ctx.catalog);
  CheckReport report = check_plan_cluster(topo, a.backend, plan);
  EmitInput input{cluster, topo, report, plan, a.backend, a.envs, a.env_options};
  std::string text = format->write(input);
  warn_issues(ctx, report);
  if (a.output.empty())
    ctx.console.data(text);
  else
    write_output(ctx, a.output, text);
  return 0;
}

}  // namespace

void add_emit_command(CLI::App& app, AppContext& ctx) {
  auto a = std::make_shared<EmitArgs>();
  CLI::App* sub = app.add_subcommand("emit", emit_help());
  sub->add_option("format", a->format, emit_format_names())->required();
  sub->add_option("-c,--cluster", a->cluster, "Cluster file (JSON or YAML, - for stdin)")
      ->required();
  sub->add_option("--plan", a->plan, "A plan file: its hosts in its rank order");
  sub->add_option("--backend", a->backend, "auto, jaccl, jaccl-ring, ring or ethernet")
      ->check(CLI::IsMember(kBackendChoices))
      ->capture_default_str();
  sub->add_option("--env", a->envs, "KEY=VALUE for every rank (the hostfile's envs), repeatable");
  sub->add_option("--starting-port", a->env_options.starting_port,
                  "mlx-env: first port, as mlx.launch -p")
      ->capture_default_str();
  sub->add_option("--connections-per-ip", a->env_options.connections_per_ip,
                  "mlx-env: ring sockets per address, as mlx.launch --connections-per-ip")
      ->capture_default_str();
  sub->add_option("-o,--output", a->output, "Write here (atomically) instead of stdout");
  sub->callback([a, &ctx] { ctx.run = [a, &ctx] { return run_emit(*a, ctx); }; });
}

}  // namespace meshplan
