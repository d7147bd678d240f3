#include <cstdlib>
#include <memory>

#include "app/commands.hpp"
#include "app/topology_args.hpp"
#include "deploy/emit/emit_all.hpp"
#include "deploy/emit/emit_formats.hpp"
#include "deploy/layout/plan_match.hpp"
#include "lib/core/error.hpp"
#include "lib/remote/slurm_hostlist.hpp"

namespace meshplan {
namespace {

struct EmitArgs {
  std::string format;
  std::string cluster;
  std::string plan;
  std::string backend = std::string(name(MlxBackend::kAuto));
  std::vector<std::string> envs;
  std::string output;
  MlxEnvOptions env_options;
  LaunchOptions launch;
  std::string allocation;
  bool list = false;
};

// `all` in the column of the format table.
std::string all_format_help() {
  size_t width = 0;
  for (const EmitFormat& f : emit_formats())
    width = std::max(width, f.name.size());
  return fmt::format(
      "  {:<{}}  every format that applies to the plan, one file each, and LAUNCH.md\n"
      "  {:<{}}  (needs --plan and -o DIR, a new folder written all at once)\n",
      "all", width, "", width);
}

// The examples, the generated format list, then how the backend is chosen.
std::string emit_help() {
  return std::string(R"(Write one artifact for the cluster (and a plan).

Examples:
  meshplan emit mlx-hostfile -c cluster.json -o hosts.json
  meshplan emit mlx-hostfile -c cluster.json --backend ring --env MLX_METAL_FAST_SYNCH=1
  meshplan emit mlx-env -c cluster.json --backend jaccl
  meshplan emit mlx-hostfile -c cluster.json --plan plan.json
  meshplan emit teardown -c cluster.json
  meshplan emit torchrun -c cluster.json --plan plan.json --program train.py
  meshplan emit all -c cluster.json --plan plan.json -o launch/
  meshplan emit slurm -c cluster.json --plan plan.json --engine vllm -o job.sbatch

)") + emit_formats_help() +
         all_format_help() +
         R"(
--backend auto picks the first valid of jaccl, jaccl-ring, ring, ethernet; an invalid backend
exits 1 with its problems. --plan uses the plan's hosts in its rank order.)";
}

int run_emit(const EmitArgs& a, AppContext& ctx) {
  if (a.list) {
    std::string names;
    for (const EmitFormat& f : emit_formats())
      names += std::string(f.name) + "\n";
    ctx.console.data(names + "all\n");
    return 0;
  }
  if (a.format.empty()) throw input_error("emit: a format is required (emit --list names them)");
  if (a.cluster.empty()) throw input_error("emit: --cluster is required");
  bool all = a.format == "all";
  const EmitFormat* format = find_emit_format(a.format);
  if (!format && !all) {
    throw input_error("unknown format \"{}\"; expected one of: {} or all", a.format,
                      emit_format_names());
  }
  if (all && (a.plan.empty() || a.output.empty() || a.output == "-"))
    throw input_error("emit all needs --plan PLAN and -o DIR (a new folder)");
  validate_emit_options(a.envs, a.env_options);
  Cluster cluster = read_cluster_arg(ctx, a.cluster);
  auto plan = read_plan_arg(ctx, a.plan);
  if (plan && !plan->models.empty() && (all || format->name != "ray-cluster"))
    throw input_error(
        "{}: a workload plan drives ray-cluster only (each model's tasks on its hosts); for {} "
        "give one model's plan (an entry's `plan` of the file, saved on its own)",
        a.plan, a.format);
  if (format && format->needs_plan && !plan)
    throw input_error("{} needs --plan PLAN: it follows the plan's strategy and layer ranges",
                      a.format);
  TopologyContext topo(cluster, ctx.catalog);
  CheckReport report = check_plan_against_cluster(topo, a.backend, plan);
  LaunchOptions launch = a.launch;
  if (launch.user.empty())
    for (const char* var : {"USER", "LOGNAME"})
      if (const char* user = std::getenv(var); user && *user && launch.user.empty())
        launch.user = user;
  // The allocation the Slurm script must stay inside: --allocation, else the one we run in.
  std::string allocation = a.allocation;
  if (allocation.empty())
    if (const char* list = std::getenv("SLURM_JOB_NODELIST"); list) allocation = list;
  if (!allocation.empty()) launch.allocation = expand_slurm_hostlist(allocation);
  EmitInput input{cluster, topo, report, plan, a.backend, a.envs, a.env_options, launch};
  if (all) {
    auto files = emit_all(input);
    warn_issues(ctx, report);
    ctx.fs.write_directory_atomic(a.output, files);
    ctx.console.info(fmt::format("wrote {} files to {}", files.size(), a.output));
    return 0;
  }
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
  sub->add_option("format", a->format, "One of the formats above, or all");
  sub->add_flag("--list", a->list, "Print the format names, one a line");
  sub->add_option("-c,--cluster", a->cluster, "Cluster file (JSON or YAML, - for stdin)");
  sub->add_option("--plan", a->plan,
                  "A plan file: its hosts in its rank order (ray-cluster: or a workload plan)");
  sub->add_option("--backend", a->backend, mlx_backend_choices_text())
      ->check(CLI::IsMember(mlx_backend_choices()))
      ->capture_default_str();
  sub->add_option("--env", a->envs, "KEY=VALUE for every rank (the hostfile's envs), repeatable");
  sub->add_option("--starting-port", a->env_options.starting_port,
                  "mlx-env: first port, as mlx.launch -p")
      ->capture_default_str();
  sub->add_option("--connections-per-ip", a->env_options.connections_per_ip,
                  "mlx-env: ring sockets per address, as mlx.launch --connections-per-ip")
      ->capture_default_str();
  sub->add_option("--port", a->launch.port,
                  "Launchers: the master / rpc-server / Ray head / exo API port (engine default)")
      ->check(CLI::Range(1, 65535));
  sub->add_option("--program", a->launch.program, "torchrun, deepspeed: the program (train.py)");
  sub->add_option("--model", a->launch.model, "llama-rpc, vllm, mlx-launch: the model path");
  sub->add_option("--user", a->launch.user,
                  "ray-cluster, ansible-inventory: ssh user when the ssh target names none "
                  "($USER)");
  sub->add_option("--engine", a->launch.engine,
                  "slurm: the engine the job starts: vllm (default), torchrun or llama-rpc");
  sub->add_option(
      "--allocation", a->allocation,
      "slurm: the allocation's nodes (gpu[01-04]); default SLURM_JOB_NODELIST when set");
  sub->add_option("-o,--output", a->output, "Write here (atomically) instead of stdout");
  sub->callback([a, &ctx] { ctx.run = [a, &ctx] { return run_emit(*a, ctx); }; });
}

}  // namespace meshplan
