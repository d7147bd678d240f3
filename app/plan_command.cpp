#include <fmt/format.h>
#include <fmt/ranges.h>

#include <filesystem>
#include <memory>

#include "app/commands.hpp"
#include "app/plan_args.hpp"
#include "app/topology_args.hpp"

#include "deploy/measure/measured_serving.hpp"
#include "lib/cluster/cluster_loader.hpp"
#include "lib/core/error.hpp"
#include "lib/core/shell_quote.hpp"
#include "lib/models/expert_load.hpp"
#include "lib/models/model_loader.hpp"
#include "lib/plan/engines.hpp"
#include "lib/plan/frontier_svg.hpp"
#include "lib/plan/infeasible_plan.hpp"
#include "lib/plan/plan_host_lines.hpp"
#include "lib/plan/plan_json.hpp"
#include "lib/plan/plan_report.hpp"
#include "lib/plan/workload_plan.hpp"
#include "solvers/problem/plan_request.hpp"
#include "solvers/serving/serving_frontier.hpp"
#include "solvers/serving/serving_planner.hpp"
#include "solvers/serving/workload.hpp"
#include "solvers/serving/workload_planner.hpp"
#include "solvers/strategy/strategy_planner.hpp"

namespace meshplan {
namespace {

struct PlanOptions {
  PlanRequestArgs args;
  std::string output;
  std::string workload;
  std::string profile;
  bool json = false;
  bool frontier = false;
  std::string frontier_svg;
};

constexpr const char* kPlanHelp =
    R"(Split a model over the hosts of a cluster and predict its speed.

Examples:
  meshplan plan -c examples/clusters/mac-studio-m3-ultra-x4.yaml -m deepseek-v3.1-4bit
  meshplan plan -c cluster.yaml -m llama-3.3-70b-4bit --context 32768 --prompt 2000
  meshplan plan -c cluster.yaml -m qwen3-235b-a22b-8bit --hosts m3-ultra-1,m3-ultra-2 --json
  meshplan plan -c cluster.yaml -m deepseek-v3.1-4bit -o plan.json
  meshplan plan -c cluster.yaml -m qwen3-235b-a22b-8bit --strategy tensor --backend jaccl
  meshplan plan -c cluster.yaml -m deepseek-v3.1-4bit --strategy expert --expert-load load.json
  meshplan plan -c cluster.yaml -m llama-3.1-405b-4bit --strategy hybrid --backend jaccl-ring
  meshplan plan -c cluster.yaml -m llama-3.3-70b-4bit --pin studio-1=0-39 --max-hosts 3
  meshplan plan -c cluster.yaml -m llama-3.3-70b-4bit --objective throughput --concurrency 32
  meshplan plan -c cluster.yaml -m llama-3.3-70b-4bit --rate 0.5 --ttft-ms 2000 --tpot-ms 50
  meshplan plan -c cluster.yaml -m gpt-oss-120b --concurrency 32 --frontier-svg frontier.svg
  meshplan plan -c cluster.yaml -m llama-3.3-70b-4bit --objective throughput --strategy routed
  meshplan plan -c cluster.yaml -m llama-3.3-70b-4bit --strategy routed --profile measured.yaml

--strategy auto (the default) plans a pipeline, tensor parallel, expert parallel and hybrid,
returns the fastest and lists the others with their predicted tokens/s or why they are not
possible. Hybrid: groups of hosts that all-reduce together (a TB5 RDMA mesh, a ring) split each
of their layers tensor-parallel, and the groups (and single hosts) form a pipeline.
--solver ilp places experts with GLPK's integer program (exact on small layers, time-limited).
For pipelines, the default solver, optimal, chooses which hosts to use, their ring order (rank 0
holds the embedding and LM head) and contiguous layer ranges that minimise the time per token
under every host's memory limit; it is exact for up to 12 hosts and reports its gap to a lower
bound beyond.
Prints one row per rank (host, layer range, weight and KV bytes, usable bytes, stage time), then
the predicted decode tokens/s, time per token and time to first token, the lower bound, and the
speed-up over the memory-proportional split and the best single host. --json prints the plan
file (meshplan.plan/2); -o writes it atomically. A model that does not fit exits with 1 and names
the host and the bytes missing.

Serving: --concurrency N keeps N requests in flight in total (each finished one replaced at
once; replicas share them), --rate R has them arrive R a second instead; each request's mean TTFT
and time per token under that load are predicted (prefills hold the others' decode), with the
streams' KV and the most that fit. --objective throughput maximises aggregate tokens/s and may
split the hosts into replicas; --ttft-ms X and --tpot-ms Y (--min-stream-tps Z is --tpot-ms
1000/Z) are targets every request's means meet, or exit 1 says which is missed and by how much;
--workload FILE places several models (docs/workload-file.md);
with any of these, the plan also compares serving shapes by end-to-end time per request, among them
prefill on one host and decode on another (it pays for prompts of 8192 tokens and more).

Routed serving: --strategy routed gives every host one range of layers and routes each request
through any chain of hosts whose ranges join, for the most aggregate tokens/s (the maximum flow;
exact on small clusters, with an upper bound and the best single pipeline and disjoint replicas as
baselines). Host speeds come from --profile FILE (tokens/s per number of layers held; `meshplan
profile` writes the cost model's own) or the cost model. `--objective throughput` with --strategy
auto considers routed plans too. `emit routing --plan P` writes the routing table.)";

// Several models from a workload file: each model's plan, with its share of the requests.
int run_workload(const PlanOptions& o, const PlanRequest& request, AppContext& ctx) {
  Workload w = parse_workload(read_input(ctx, o.workload), o.workload);
  std::vector<ModelDesc> descs;
  descs.reserve(w.models.size());
  for (const WorkloadEntry& e : w.models) {
    try {
      descs.push_back(load_model(e.model, e.quant, ctx.fs));
    } catch (const Error& err) {
      throw Error(err.kind(), fmt::format("{}: {}", e.where.describe(), err.what()));
    }
  }
  Cluster cluster = read_cluster_arg(ctx, o.args.cluster);
  std::vector<WorkloadModel> models;
  std::vector<const ModelDesc*> pointers;
  for (size_t i = 0; i < descs.size(); ++i) {
    models.push_back({&descs[i], w.models[i]});
    pointers.push_back(&descs[i]);
  }
  WorkloadPlan plan = plan_workload(cluster, ctx.catalog, models, request, ctx.clock);
  std::string json = write_workload_json(plan.objective, plan.plans, pointers, plan.shares);
  if (!o.output.empty()) write_output(ctx, o.output, json);
  if (o.json)
    ctx.console.data(json);
  else if (o.output != "-")
    ctx.console.data(render_workload(plan.objective, plan.plans, plan.shares));
  return 0;
}

// A plan no engine runs has nothing to launch: its last line says what would run it instead,
// the engines that load this layout as planned, else those that run a layout of their own.
std::string no_engine_line(const Plan& plan, const Cluster& cluster, const Catalog& catalog) {
  const std::vector<std::string> hosts = plan_hosts(plan);
  std::vector<std::string> as_planned, own;
  for (const Engine& e : engines()) {
    if (!runs_on(e, cluster, catalog, hosts)) continue;
    (layout_refusal(e, plan).empty() ? as_planned : own)
        .push_back("--engine " + std::string(e.name));
  }
  std::string why = plan.engine_reason;
  if (why.rfind("none: ", 0) == 0) why = why.substr(6);
  std::string out = fmt::format("Not launched: no engine is chosen for this plan ({})", why);
  // No engine follows a routing table, whatever --engine says: another strategy is needed.
  if (plan.routing && !own.empty())
    return out + fmt::format("; plan again with --strategy pipeline (or auto) and {}\n",
                             fmt::join(own, " or "));
  if (!as_planned.empty())
    return out + fmt::format("; plan again with {} (runs this layout as planned), then emit all\n",
                             fmt::join(as_planned, " or "));
  if (!own.empty())
    return out + fmt::format(
                     "; plan again with {} for a layout that engine runs with its own "
                     "split\n",
                     fmt::join(own, " or "));
  return out + "; no engine runs on these hosts\n";
}

// The plan's last line: the command that writes its launch files (LAUNCH.md says what to run).
std::string launch_line(const std::string& cluster, const std::string& output) {
  const std::string c = cluster == "-" ? "CLUSTER" : shell_quote(cluster);
  if (output.empty())
    return fmt::format(
        "Launch: save the plan (-o plan.json), then meshplan emit all -c {} --plan plan.json -o "
        "launch/\n",
        c);
  return fmt::format("Launch: meshplan emit all -c {} --plan {} -o launch/\n", c,
                     shell_quote(output));
}

// The table with `lines` after its "Predicted:" line (at its end when it has none).
std::string beside_prediction(std::string table, const std::string& lines) {
  size_t at = table.find("\nPredicted: ");
  at = at == std::string::npos ? std::string::npos : table.find('\n', at + 1);
  table.insert(at == std::string::npos ? table.size() : at + 1, lines);
  return table;
}

// The plan file (-o, --json) and the table, with what `meshplan measure` recorded in the cluster
// for this model, engine and hosts beside the prediction.
void write_plan(const PlanOptions& o, AppContext& ctx, const Plan& plan, const ModelDesc& model,
                const Cluster& cluster) {
  const PlanRequestArgs& a = o.args;
  std::string measured;
  for (const std::string& line : measured_lines(cluster, plan))
    measured += line + "\n";
  ojson plan_json = plan_to_json(plan, model);
  if (!measured.empty()) plan_json["measured"] = measured_json(cluster, plan);
  std::string json = plan_json.dump(2) + "\n";
  if (!o.output.empty()) write_output(ctx, o.output, json);
  if (o.json)
    ctx.console.data(json);
  else if (o.output != "-")
    ctx.console.data(beside_prediction(render_plan(plan), measured) +
                     render_engine_verdicts(plan, cluster, ctx.catalog) +
                     (find_engine(plan.engine) ? launch_line(a.cluster, o.output)
                                               : no_engine_line(plan, cluster, ctx.catalog)));
}

int run_plan(const PlanOptions& o, AppContext& ctx) {
  // -v says where the wall time went: loading the inputs, then the planner's own steps.
  const double began = ctx.clock.now_seconds();
  std::vector<std::pair<std::string, double>> timings;
  double mark = began;
  auto step = [&](const char* name) {
    const double now = ctx.clock.now_seconds();
    timings.push_back({name, now - mark});
    mark = now;
  };
  // Cheap arguments and the model first: a typo should not wait for a large cluster file.
  const PlanRequestArgs& a = o.args;
  PlanRequest request = a.request;
  serving_request(a, request);
  if (!o.workload.empty()) {
    if (!a.model.empty())
      throw input_error("--workload lists the models; leave out -m/--model {}", a.model);
    return run_workload(o, request, ctx);
  }
  if (a.model.empty()) throw input_error("--model is required (or --workload FILE)");
  model_request(a, request);
  ModelDesc model = load_model(a.model, a.quant, ctx.fs);
  step("model");
  RoutedRequest routed;
  std::vector<std::pair<std::string, double>> routed_timings;
  routed.timings = &routed_timings;
  if (!o.profile.empty()) {
    if (request.objective != "throughput")
      throw input_error(
          "--profile {}: profiles are for --objective throughput (--strategy routed or auto)",
          o.profile);
    routed.profile = parse_throughput_profile(read_input(ctx, o.profile), o.profile);
    routed.profile_where = o.profile;
    step("profile");
  }
  routed.model_id = a.model;
  routed.consider_in_auto = true;
  if (!a.expert_load.empty())
    request.expert_load = parse_expert_load(read_input(ctx, a.expert_load), a.expert_load, model);
  Cluster cluster = read_cluster_arg(ctx, a.cluster);
  step("cluster");
  Plan plan;
  try {
    const bool frontier = o.frontier || !o.frontier_svg.empty();
    plan = request.serving() || frontier
               ? plan_serving(cluster, ctx.catalog, model, request, ctx.clock, routed)
               : plan_model(cluster, ctx.catalog, model, request, ctx.clock);
    if (frontier)
      plan.frontier = serving_frontier(cluster, ctx.catalog, model, request, plan, ctx.clock);
  } catch (const Error& e) {
    // --json readers get an object on stdout for a plan that cannot be made, too.
    if (o.json && e.kind() == ErrorKind::kFailed)
      ctx.console.data(write_infeasible_plan_json(model.name, e));
    throw;
  }
  step("plan");
  // -v: the figures behind the prediction, per candidate host.
  for (const HostInfo& h : plan.hosts)
    ctx.console.info(plan_host_line(h));
  if (!o.frontier_svg.empty())
    write_output(
        ctx, o.frontier_svg,
        frontier_svg(
            *plan.frontier,
            fmt::format("{} on {}: the serving frontier", model.name,
                        a.cluster == "-" ? std::string("stdin")
                                         : std::filesystem::path(a.cluster).filename().string())));
  write_plan(o, ctx, plan, model, cluster);
  step("output");
  std::string spent;
  for (const auto& [name, s] : timings)
    spent += fmt::format("{}{} {:.3f} s", spent.empty() ? "" : ", ", name, s);
  ctx.console.info(
      fmt::format("time: {:.3f} s in all ({})", ctx.clock.now_seconds() - began, spent));
  if (!routed_timings.empty()) {
    spent.clear();
    for (const auto& [name, s] : routed_timings)
      spent += fmt::format("{}{} {:.3f} s", spent.empty() ? "" : ", ", name, s);
    ctx.console.info(fmt::format("time in the routed planner: {}", spent));
  }
  return 0;
}

}  // namespace

void add_plan_command(CLI::App& app, AppContext& ctx) {
  auto o = std::make_shared<PlanOptions>();
  CLI::App* sub = app.add_subcommand("plan", kPlanHelp);
  add_plan_request_options(sub, o->args);
  sub->add_option("--profile", o->profile,
                  "Routed serving: measured tokens/s per host and layers held (YAML or JSON, "
                  "docs/profile.md)");
  add_serving_options(sub, o->args);
  sub->add_option("--workload", o->workload,
                  "Several models: a workload file (JSON or YAML, docs/workload-file.md)");
  sub->add_flag("--json", o->json, "Print the plan file (JSON) instead of the table");
  sub->add_flag("--frontier", o->frontier,
                "Add the serving frontier: for every shape the engine runs, tokens/s each and in "
                "all as the requests in flight grow (a table; \"frontier\" in the plan file)");
  sub->add_option("--frontier-svg", o->frontier_svg,
                  "Write the frontier as an SVG chart here, atomically (implies --frontier)");
  sub->add_option("-o,--output", o->output, "Write the plan file (JSON) here, atomically");
  sub->callback([o, &ctx] { ctx.run = [o, &ctx] { return run_plan(*o, ctx); }; });
}

}  // namespace meshplan
