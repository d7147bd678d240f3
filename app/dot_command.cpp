#include <memory>

#include "app/commands.hpp"
#include "app/topology_args.hpp"
#include "deploy/emit/cluster_dot.hpp"
#include "deploy/layout/plan_match.hpp"

namespace meshplan {
namespace {

struct DotArgs {
  std::string cluster;
  std::string plan;
  std::string backend = std::string(name(MlxBackend::kAuto));
  std::string output;
  std::string advice;
};

constexpr const char* kDotHelp = R"(Draw the cluster as a Graphviz graph.

Examples:
  meshplan dot -c cluster.json | dot -Tsvg > cluster.svg
  meshplan dot -c cluster.json --backend jaccl | dot -Tpng > mesh.png
  meshplan dot -c cluster.json --plan plan.json -o cluster.dot
  meshplan advise -c cluster.json -m llama-3.3-70b-4bit -o advice.json
  meshplan dot -c cluster.json --advice advice.json | dot -Tsvg > advice.svg

Hosts are boxes (name, chip, memory; with --plan each host's rank and layer range), each cable
an edge labelled with both interfaces and its speed: green for Thunderbolt 5 with RDMA, blue for
Thunderbolt over TCP, purple for Ethernet cables; shared networks are grey ellipses. Cables the
backend still needs are dashed red edges naming the free ports to use. With --advice FILE (from
`meshplan advise -o FILE`), the cables the advice proposes are dashed orange edges labelled with
their row, and the hosts it buys dashed boxes.)";

int run_dot(const DotArgs& a, AppContext& ctx) {
  Cluster cluster = read_cluster_arg(ctx, a.cluster);
  auto plan = read_plan_arg(ctx, a.plan);
  TopologyContext topo(cluster, ctx.catalog);
  CheckReport report = check_plan_against_cluster(topo, a.backend, plan);
  std::vector<std::pair<int, AdviceCable>> advice;
  if (!a.advice.empty()) advice = read_advice_cables(read_input(ctx, a.advice), a.advice);
  std::string dot =
      write_cluster_dot_artifact(EmitInput{cluster, topo, report, plan, a.backend, {}, {}}, advice);
  if (a.output.empty())
    ctx.console.data(dot);
  else
    write_output(ctx, a.output, dot);
  return 0;
}

}  // namespace

void add_dot_command(CLI::App& app, AppContext& ctx) {
  auto a = std::make_shared<DotArgs>();
  CLI::App* sub = app.add_subcommand("dot", kDotHelp);
  sub->add_option("-c,--cluster", a->cluster, "Cluster file (JSON or YAML, - for stdin)")
      ->required();
  sub->add_option("--plan", a->plan, "A plan file: show each host's rank and layer range");
  sub->add_option("--backend", a->backend,
                  "Backend whose missing cables to draw: " + mlx_backend_choices_text())
      ->check(CLI::IsMember(mlx_backend_choices()))
      ->capture_default_str();
  sub->add_option("--advice", a->advice,
                  "An advice file (meshplan advise -o FILE): draw the cables it proposes dashed");
  sub->add_option("-o,--output", a->output, "Write the graph here (atomically) instead of stdout");
  sub->callback([a, &ctx] { ctx.run = [a, &ctx] { return run_dot(*a, ctx); }; });
}

}  // namespace meshplan
