#include <memory>

#include "app/apply_args.hpp"
#include "app/commands.hpp"
#include "app/topology_args.hpp"
#include "lib/core/error.hpp"
#include "topologies/setup_commands.hpp"

namespace meshplan {
namespace {

struct TeardownArgs {
  std::string cluster;
  std::string host;
  ApplyArgs apply;
};

constexpr const char* kTeardownHelp =
    R"(Print (or, with --apply, run) the commands that undo `meshplan setup`.

Examples:
  meshplan teardown -c cluster.json
  meshplan teardown -c cluster.json --host m3-ultra-2 | ssh m3-ultra-2 sh
  meshplan teardown -c cluster.json --dry-run
  meshplan teardown -c cluster.json --apply
  meshplan teardown -c cluster.json --apply --undo cluster.undo.sh   # finish a cut-off apply

Per host, last configured first: each peer's route through its Thunderbolt interface, each /30
address setup planned, then the Thunderbolt Bridge back up (where it was up, or its state is not
known). The same text as `meshplan emit teardown`.

--apply runs it over SSH on every host at once, only what the host still has (a second run changes
nothing and says so); a host that fails has its own steps put back, and the others theirs (unless
--keep-partial). Interfaces that setup brought up stay up. `sh CLUSTER.undo.sh`, written by
`setup --apply`, puts back exactly what that run changed instead; `--apply --undo FILE` runs that
script's per-host blocks over meshplan's own SSH sessions (with the SSH options given here), which
is how to finish a `setup --apply` that was cut off. Exit code 3 when a host fails, 4 when a host's
state is left unknown or changed.)";

int run_teardown(const TeardownArgs& a, AppContext& ctx) {
  Cluster cluster = read_cluster_arg(ctx, a.cluster);
  TopologyContext topo(cluster, ctx.catalog);
  if (!topo.subnet_error.empty()) throw failure("{}", topo.subnet_error);
  std::vector<HostSetup> hosts = host_setups(topo.fabric, topo.subnets);
  if (!a.host.empty()) {
    std::erase_if(hosts, [&](const HostSetup& h) { return h.host != a.host; });
    if (hosts.empty()) throw input_error("--host {}: not a host of {}", a.host, a.cluster);
  }
  if (!a.apply.undo.empty()) return run_undo_file_command(ctx, cluster, a.cluster, a.apply);
  if (a.apply.wanted())
    return run_apply_command(ctx, cluster, a.cluster, hosts, a.apply, ApplyMode::kTeardown);
  if (!a.host.empty())
    ctx.console.data(render_commands(teardown_commands(hosts.front())));
  else
    ctx.console.data(render_teardown(hosts));
  return 0;
}

}  // namespace

void add_teardown_command(CLI::App& app, AppContext& ctx) {
  auto a = std::make_shared<TeardownArgs>();
  CLI::App* sub = app.add_subcommand("teardown", kTeardownHelp);
  sub->add_option("-c,--cluster", a->cluster, "Cluster file (JSON or YAML, - for stdin)")
      ->required();
  sub->add_option("--host", a->host, "Only this host's commands, one per line");
  add_apply_options(sub, a->apply, ApplyMode::kTeardown);
  sub->callback([a, &ctx] { ctx.run = [a, &ctx] { return run_teardown(*a, ctx); }; });
}

}  // namespace meshplan
