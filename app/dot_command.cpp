#include <fmt/format.h>

#include <memory>

#include "app/commands.hpp"
#include "app/topology_args.hpp"
#include "lib/emit/dot_writer.hpp"

namespace meshplan {
namespace {

struct DotArgs {
  std::string cluster;
  std::string plan;
  std::string backend = "auto";
  std::string output;
};

constexpr const char* kDotHelp = R"(Draw the cluster as a Graphviz graph.

Examples:
  meshplan dot -c cluster.json | dot -Tsvg > cluster.svg
  meshplan dot -c cluster.json --backend jaccl | dot -Tpng > mesh.png
  meshplan dot -c cluster.json --plan plan.json -o cluster.dot

Hosts are boxes (name, chip, memory; with --plan each host's rank and layer range), each cable
an edge labelled with both interfaces and its speed: green for Thunderbolt 5 with RDMA, blue for
Thunderbolt over TCP, purple for Ethernet cables; shared networks are grey ellipses. Cables the
backend still needs are dashed red edges naming the free ports to use.)";

// Cables to draw as missing: those of the requested backend, or for auto (when nothing is valid)
// those of the backend closest to working: jaccl-ring when every host has RDMA, else ring.
std::vector<CableToAdd> missing_cables(const CheckReport& report, const Cluster& cluster,
                                       const std::string& backend, std::string& shown) {
  shown = backend;
  if (backend == "auto") {
    if (!report.chosen.empty()) return {};
    bool rdma = true;
    for (const auto& h : cluster.hosts)
      rdma = rdma && h.rdma_enabled.value_or(false);
    shown = rdma ? "jaccl-ring" : "ring";
  }
  std::vector<CableToAdd> out;
  if (const BackendVerdict* v = report.find(shown))
    for (const auto& i : v->issues)
      if (i.severity == Severity::kError)
        for (const auto& c : i.add_cables)
          out.push_back(c);
  return out;
}

int run_dot(const DotArgs& a, AppContext& ctx) {
  Cluster cluster = read_cluster_arg(ctx, a.cluster);
  auto plan = read_plan_arg(ctx, a.plan);
  TopologyContext topo(cluster, ctx.catalog);
  CheckReport report = check_cluster(topo, check_options_for(a.backend, plan));
  DotOptions o;
  std::string shown;
  o.missing = missing_cables(report, cluster, a.backend, shown);
  std::string name = cluster.name.empty() ? "cluster" : cluster.name;
  if (a.backend == "auto" && !report.chosen.empty()) {
    o.title = fmt::format("{}: backend {} is valid", name, report.chosen);
  } else {
    const BackendVerdict* v = report.find(shown);
    o.title = v && v->valid
                  ? fmt::format("{}: backend {} is valid", name, shown)
                  : fmt::format("{}: backend {} needs the dashed red cables", name, shown);
    if (v && !v->valid && o.missing.empty())
      o.title = fmt::format("{}: backend {} is not valid", name, shown);
  }
  if (plan) {
    for (const auto& r : plan->ranks) {
      o.host_notes[r.host] = r.layers ? fmt::format("rank {}: layers [{}, {})", r.rank,
                                                    r.layers->first, r.layers->second)
                                      : fmt::format("rank {}", r.rank);
    }
    o.dim_unnoted = true;
  }
  std::string dot = write_cluster_dot(cluster, topo.graph, o);
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
                  "Backend whose missing cables to draw: auto, jaccl, jaccl-ring, ring, ethernet")
      ->check(CLI::IsMember(kBackendChoices))
      ->capture_default_str();
  sub->add_option("-o,--output", a->output, "Write the graph here (atomically) instead of stdout");
  sub->callback([a, &ctx] { ctx.run = [a, &ctx] { return run_dot(*a, ctx); }; });
}

}  // namespace meshplan
