#include <memory>

#include "app/commands.hpp"
#include "app/topology_args.hpp"
#include "lib/core/error.hpp"
#include "lib/emit/mlx_env.hpp"
#include "lib/emit/mlx_hostfile_builder.hpp"
#include "lib/emit/mlx_hostfile_writer.hpp"
#include "lib/emit/setup_commands.hpp"
#include "topologies/mlx_hostfile.hpp"

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

constexpr const char* kEmitHelp = R"(Write one artifact for the cluster (and a plan).

Examples:
  meshplan emit mlx-hostfile -c cluster.json -o hosts.json
  meshplan emit mlx-hostfile -c cluster.json --backend ring --env MLX_METAL_FAST_SYNCH=1
  meshplan emit mlx-env -c cluster.json --backend jaccl
  meshplan emit mlx-hostfile -c cluster.json --plan plan.json
  meshplan emit teardown -c cluster.json

Formats:
  mlx-hostfile  the hostfile mlx.launch reads, byte for byte as mlx.distributed_config writes it
                (ranks in its order, /30 per Thunderbolt cable from 192.168.0.0/16, ranges in use skipped)
  mlx-env       per rank, the variables mlx.launch would export (MLX_RANK, MLX_HOSTFILE or
                MLX_IBV_DEVICES contents, MLX_JACCL_COORDINATOR, MLX_JACCL_RING)
  setup         per host, the interface commands (same as `meshplan setup`)
  teardown      per host, the commands that undo them
--backend auto picks the first valid of jaccl, jaccl-ring, ring, ethernet; an invalid backend
exits 1 with its problems. --plan uses the plan's hosts in its rank order.)";

using Emitter = std::string (*)(const EmitArgs&, AppContext&, const TopologyContext&,
                                const CheckReport&);

std::string emit_hostfile_text(const EmitArgs& a, AppContext&, const TopologyContext& topo,
                               const CheckReport& r) {
  return write_mlx_hostfile(build_mlx_hostfile(topo, require_valid(r), a.envs));
}

std::string emit_env(const EmitArgs& a, AppContext&, const TopologyContext& topo,
                     const CheckReport& r) {
  MlxHostfile f = build_mlx_hostfile(topo, require_valid(r), a.envs);
  return render_mlx_env(f, mlx_rank_envs(f, a.env_options));
}

std::string emit_setup(const EmitArgs&, AppContext&, const TopologyContext& topo,
                       const CheckReport& r) {
  require_valid(r);
  if (!topo.subnet_error.empty()) throw failure("{}", topo.subnet_error);
  return render_setup(host_setups(topo.fabric, topo.subnets));
}

std::string emit_teardown(const EmitArgs&, AppContext&, const TopologyContext& topo,
                          const CheckReport&) {
  if (!topo.subnet_error.empty()) throw failure("{}", topo.subnet_error);
  return render_teardown(host_setups(topo.fabric, topo.subnets));
}

// One line per format; other artifacts add theirs here.
const std::vector<std::pair<std::string, Emitter>>& emitters() {
  static const std::vector<std::pair<std::string, Emitter>> table = {
      {"mlx-hostfile", emit_hostfile_text},
      {"mlx-env", emit_env},
      {"setup", emit_setup},
      {"teardown", emit_teardown},
  };
  return table;
}

int run_emit(const EmitArgs& a, AppContext& ctx) {
  Emitter emit = nullptr;
  std::string names;
  for (const auto& [name, e] : emitters()) {
    if (name == a.format) emit = e;
    names += (names.empty() ? "" : ", ") + name;
  }
  if (!emit) throw input_error("unknown format \"{}\"; expected one of: {}", a.format, names);
  validate_envs(a.envs);
  if (a.env_options.connections_per_ip < 1)
    throw input_error("--connections-per-ip must be at least 1");
  Cluster cluster = read_cluster_arg(ctx, a.cluster);
  auto plan = read_plan_arg(ctx, a.plan);
  TopologyContext topo(cluster, ctx.catalog);
  CheckReport report = check_cluster(topo, check_options_for(a.backend, plan));
  std::string text = emit(a, ctx, topo, report);
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
  CLI::App* sub = app.add_subcommand("emit", kEmitHelp);
  sub->add_option("format", a->format, "mlx-hostfile, mlx-env, setup or teardown")->required();
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
