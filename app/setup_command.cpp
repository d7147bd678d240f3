#include <memory>

#include "app/apply_args.hpp"
#include "app/commands.hpp"
#include "app/topology_args.hpp"
#include "deploy/layout/plan_match.hpp"
#include "deploy/writers/wired_limits.hpp"
#include "lib/core/error.hpp"
#include "topologies/setup_commands.hpp"

namespace meshplan {
namespace {

struct SetupArgs {
  std::string cluster;
  std::string backend = std::string(name(MlxBackend::kAuto));
  std::string host;
  std::string plan;
  ApplyArgs apply;
};

constexpr const char* kSetupHelp =
    R"(Print the interface configuration each host needs for MLX over Thunderbolt.

Examples:
  meshplan setup -c cluster.json
  meshplan setup -c cluster.json --backend ring
  meshplan setup -c cluster.json --host m3-ultra-2 | ssh m3-ultra-2 sh
  meshplan setup -c cluster.json --plan plan.json
  meshplan setup -c cluster.json --dry-run           # read each host, print what would run
  meshplan setup -c cluster.json --apply             # run it; the undo script is cluster.undo.sh
  meshplan setup -c cluster.json --apply --undo ~/undo-mesh.sh --ssh-config ./ssh_config

Per host, the commands mlx.distributed_config would run: take the Thunderbolt Bridge down, give
each cable's interface its own /30 (192.168.0.0/16, ranges already in use skipped) and route the
peer through it. The backend is checked first; an invalid one exits 1 with its problems. The
settings do not survive a restart; `meshplan teardown` prints (or, with --apply, runs) the commands
that undo them. Direct cables between Linux hosts get the same /30s with `ip link` and `ip addr`.
With --plan, the plan's backend and hosts are used, and each Mac that holds more than macOS wires
for the GPU by default also gets its `sudo sysctl iogpu.wired_limit_mb=N` line (printed only).

--apply runs them over SSH, every host at once: it reads each host's interfaces first and runs
only what differs (a second run changes nothing and says so), as root or with `sudo -n` (a host
where sudo wants a password is named with the sudoers line to add, and nothing changes anywhere).
It refuses to touch the interface that carries the SSH session or the default route. Before the
first change it writes the undo script (--undo FILE, default beside the cluster file), whose ssh
lines carry this run's SSH options. When a host fails, its changes and every other host's are put
back (unless --keep-partial) and the report says per host what was done and undone: known clean,
put back, still changed or unknown. A step whose answer never came (timeout, session cut) is read
back from the host before anything is assumed; a host that stays out of reach is unknown, with its
undo lines. Exit code 3 when every host is known clean or put back, 4 when one is unknown or still
changed (finish with `sh UNDO` or `meshplan teardown -c CLUSTER --apply --undo UNDO`). The SSH
options are discover's.)";

int run_setup(const SetupArgs& a, AppContext& ctx) {
  Cluster cluster = read_cluster_arg(ctx, a.cluster);
  auto plan = read_plan_arg(ctx, a.plan);
  TopologyContext topo(cluster, ctx.catalog);
  CheckReport report = check_plan_against_cluster(topo, a.backend, plan);
  const std::string wired = plan ? render_wired_limits(*plan, a.host) : "";
  const BackendVerdict& v = require_valid(report);
  if (!topo.subnet_error.empty()) throw failure("{}", topo.subnet_error);
  warn_issues(ctx, report);
  std::vector<HostSetup> hosts = host_setups(topo.fabric, topo.subnets);
  if (v.transport == "network") {
    // Over the network only direct cables that have no addresses yet need configuring.
    std::erase_if(hosts, [](const HostSetup& h) { return h.direct.empty(); });
    for (auto& h : hosts)
      h.links.clear();
    if (hosts.empty()) {
      ctx.console.note("backend " + v.backend +
                       " runs over the network: no Thunderbolt interface needs configuring");
      ctx.console.data(wired);
      return 0;
    }
  }
  if (a.apply.wanted()) {
    if (!a.host.empty()) {
      std::erase_if(hosts, [&](const HostSetup& h) { return h.host != a.host; });
      if (hosts.empty()) throw input_error("--host {}: not a host of {}", a.host, a.cluster);
    }
    if (!wired.empty())
      ctx.console.note("the GPU wired limits are printed, not applied:\n" + wired);
    return run_apply_command(ctx, cluster, a.cluster, hosts, a.apply, ApplyMode::kSetup);
  }
  if (!a.host.empty()) {
    for (const auto& h : hosts) {
      if (h.host != a.host) continue;
      ctx.console.data(wired + render_commands(setup_commands(h)));
      return 0;
    }
    throw input_error("--host {}: not a host of {}", a.host, a.cluster);
  }
  ctx.console.data(wired + render_setup(hosts));
  return 0;
}

}  // namespace

void add_setup_command(CLI::App& app, AppContext& ctx) {
  auto a = std::make_shared<SetupArgs>();
  CLI::App* sub = app.add_subcommand("setup", kSetupHelp);
  sub->add_option("-c,--cluster", a->cluster, "Cluster file (JSON or YAML, - for stdin)")
      ->required();
  sub->add_option("--backend", a->backend, mlx_backend_choices_text())
      ->check(CLI::IsMember(mlx_backend_choices()))
      ->capture_default_str();
  sub->add_option("--host", a->host, "Print only this host's commands, one per line");
  sub->add_option("--plan", a->plan,
                  "A plan file: its backend and hosts, and the GPU wired limit each host needs");
  add_apply_options(sub, a->apply, ApplyMode::kSetup);
  sub->callback([a, &ctx] { ctx.run = [a, &ctx] { return run_setup(*a, ctx); }; });
}

}  // namespace meshplan
