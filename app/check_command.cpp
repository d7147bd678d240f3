#include <memory>

#include "app/commands.hpp"
#include "app/topology_args.hpp"
#include "lib/core/document.hpp"
#include "topologies/check_report.hpp"
#include "topologies/hostfile_check.hpp"
#include "topologies/mlx_hostfile.hpp"

namespace meshplan {
namespace {

struct CheckArgs {
  std::string cluster;
  std::string backend = "auto";
  std::string hostfile;
  std::string plan;
  bool json = false;
};

constexpr const char* kCheckHelp =
    R"(Check the cabling and networks against what each MLX backend needs.

Examples:
  meshplan check -c cluster.json
  meshplan check -c cluster.json --backend jaccl
  meshplan check -c cluster.json --hostfile hosts.json
  meshplan check -c cluster.json --plan plan.json --backend ring --json

Lists every problem with its fix: for each missing mesh cable a free port on each side, for a
ring the fewest cables to add, port budgets, the 8-rank JACCL limit, Thunderbolt 4 cables where
RDMA is needed, hosts without RDMA, the Thunderbolt Bridge, address ranges in use, macOS builds,
cables seen from one side only. --backend auto (the default) picks the first valid of jaccl,
jaccl-ring, ring and ethernet. --hostfile checks an existing MLX hostfile against the cabling
(rank order, devices, addresses). --plan checks the plan's hosts in its rank order. Exits 0 when
the backend is valid (and the hostfile matches), 1 when not.)";

int run_check(const CheckArgs& a, AppContext& ctx) {
  Cluster cluster = read_cluster_arg(ctx, a.cluster);
  auto plan = read_plan_arg(ctx, a.plan);
  TopologyContext topo(cluster, ctx.catalog);
  CheckReport report = check_cluster(topo, check_options_for(a.backend, plan));
  if (!a.hostfile.empty()) {
    MlxHostfile hostfile =
        read_mlx_hostfile(parse_json_document(read_input(ctx, a.hostfile), a.hostfile));
    report.hostfile = check_hostfile(topo, hostfile, a.hostfile, a.backend);
  }
  if (a.json)
    ctx.console.data(check_report_json(report).dump(2) + "\n");
  else
    ctx.console.data(render_check_report(report));
  return report.ok() ? 0 : 1;
}

}  // namespace

void add_check_command(CLI::App& app, AppContext& ctx) {
  auto a = std::make_shared<CheckArgs>();
  CLI::App* sub = app.add_subcommand("check", kCheckHelp);
  sub->add_option("-c,--cluster", a->cluster, "Cluster file (JSON or YAML, - for stdin)")
      ->required();
  sub->add_option("--backend", a->backend, "auto, jaccl, jaccl-ring, ring or ethernet")
      ->check(CLI::IsMember(kBackendChoices))
      ->capture_default_str();
  sub->add_option("--hostfile", a->hostfile, "An MLX hostfile to check against the cabling");
  sub->add_option("--plan", a->plan, "A plan file: check its hosts in its rank order");
  sub->add_flag("--json", a->json, "Print the findings as JSON (meshplan.check/1)");
  sub->callback([a, &ctx] { ctx.run = [a, &ctx] { return run_check(*a, ctx); }; });
}

}  // namespace meshplan
