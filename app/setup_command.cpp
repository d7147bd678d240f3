#include <memory>

#include "app/commands.hpp"
#include "app/topology_args.hpp"
#include "lib/core/error.hpp"
#include "lib/emit/setup_commands.hpp"

namespace meshplan {
namespace {

struct SetupArgs {
  std::string cluster;
  std::string backend = "auto";
  std::string host;
  std::string plan;
  bool apply = false;
};

constexpr const char* kSetupHelp =
    R"(Print the interface configuration each host needs for MLX over Thunderbolt.

Examples:
  meshplan setup -c cluster.json
  meshplan setup -c cluster.json --backend ring
  meshplan setup -c cluster.json --host m3-ultra-2 | ssh m3-ultra-2 sh
  meshplan setup -c cluster.json --plan plan.json

Per host, the commands mlx.distributed_config would run: take the Thunderbolt Bridge down, give
each cable's interface its own /30 (192.168.0.0/16, ranges already in use skipped) and route the
peer through it. The backend is checked first; an invalid one exits 1 with its problems. The
settings do not survive a restart; `meshplan emit teardown` prints the commands that undo them.
With --plan, the plan's backend and hosts are used, and each Mac that holds more than macOS wires
for the GPU by default also gets its `sudo sysctl iogpu.wired_limit_mb=N` line.
--apply (running them over SSH) is not available yet.)";

int run_setup(const SetupArgs& a, AppContext& ctx) {
  if (a.apply) {
    throw input_error(
        "setup --apply is not available yet; print the commands (without --apply) and run each "
        "host's "
        "block there, e.g. meshplan setup -c CLUSTER --host HOST | ssh HOST sh");
  }
  Cluster cluster = read_cluster_arg(ctx, a.cluster);
  auto plan = read_plan_arg(ctx, a.plan);
  TopologyContext topo(cluster, ctx.catalog);
  CheckReport report = check_plan_cluster(topo, a.backend, plan);
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
  sub->add_option("--backend", a->backend, "auto, jaccl, jaccl-ring, ring or ethernet")
      ->check(CLI::IsMember(kBackendChoices))
      ->capture_default_str();
  sub->add_option("--host", a->host, "Print only this host's commands, one per line");
  sub->add_option("--plan", a->plan,
                  "A plan file: its backend and hosts, and the GPU wired limit each host needs");
  sub->add_flag("--apply", a->apply, "Run the commands over SSH (not available yet)");
  sub->callback([a, &ctx] { ctx.run = [a, &ctx] { return run_setup(*a, ctx); }; });
}

}  // namespace meshplan
