#include <memory>

#include "app/commands.hpp"
#include "app/plan_args.hpp"
#include "app/topology_args.hpp"
#include "lib/core/error.hpp"
#include "lib/models/expert_load.hpp"
#include "lib/models/model_loader.hpp"
#include "lib/plan/advice.hpp"
#include "solvers/advice/advisor.hpp"
#include "solvers/serving/workload.hpp"

namespace meshplan {
namespace {

struct AdviseOptions {
  PlanRequestArgs args;
  std::string buy;
  std::string workload;
  int changes = 2;
  int budget = 30;
  int jobs = 0;
  size_t top = 10;
  bool json = false;
  std::string output;
};

constexpr const char* kAdviseHelp =
    R"(Say what to change next: re-plan the cluster under every change a user can make and rank
the changes by what they buy in the objective (a workload: the workload planner's own).

Examples:
  meshplan advise -c examples/clusters/mac-mini-m4-pro-x4.yaml -m llama-3.3-70b-4bit
  meshplan advise -c cluster.yaml -m deepseek-v3.1-4bit --buy mac-studio-m3-ultra,dgx-spark
  meshplan advise -c cluster.yaml -m llama-3.3-70b-4bit --objective throughput --changes 3
  meshplan advise -c cluster.yaml -m qwen3-235b-a22b-8bit --json -o advice.json
  meshplan advise -c cluster.yaml --workload workload.yaml --objective throughput
  meshplan dot -c cluster.yaml --advice advice.json | dot -Tsvg > advice.svg

The changes: a Thunderbolt cable between two Macs on free ports (or a cable moved from a full
port), a Thunderbolt 4 cable or port replaced by Thunderbolt 5, a network cable between Linux
hosts on spare interfaces, RDMA enabled (macOS 26.2 and later), the Thunderbolt Bridge taken
down, the GPU wired limit raised, one more host (--buy: catalog machines at each size they are
sold with; default: one more like each host), a host left out, and, where memory binds, a
lower-bit version of the model or a shorter context; the engine, where another runs a faster
layout. Combinations of up to --changes N are tried (all of them while --budget plans last, then
those of the best changes alone, and the report says so); a combination is listed only when it
beats each of its parts. The first row is the plan as the cluster stands. Each row gives the new
plan's figures, the check findings it resolves and what to do, ports named. Changes that buy
nothing are counted, not listed; those that only fix a finding are listed apart. --json prints
meshplan.advice/1 (docs/advice-file.md).)";

int run_advise(const AdviseOptions& o, AppContext& ctx) {
  const PlanRequestArgs& a = o.args;
  AdviseRequest request;
  if (!o.workload.empty()) {
    if (!a.model.empty())
      throw input_error("--workload lists the models; leave out -m/--model {}", a.model);
    request.workload = parse_workload(read_input(ctx, o.workload), o.workload).models;
  } else if (a.model.empty()) {
    throw input_error("--model is required (or --workload FILE)");
  }
  request.model = a.model;
  request.quant = a.quant;
  request.plan = a.request;
  serving_request(a, request.plan);
  model_request(a, request.plan);
  if (!o.buy.empty()) request.buy = split_list(o.buy);
  request.max_changes = o.changes;
  request.plan_budget = o.budget;
  request.jobs = o.jobs;
  if (!a.expert_load.empty())
    request.plan.expert_load = parse_expert_load(read_input(ctx, a.expert_load), a.expert_load,
                                                 load_model(a.model, a.quant, ctx.fs));
  Cluster cluster = read_cluster_arg(ctx, a.cluster);
  AdviceReport report = advise(cluster, ctx.catalog, request, ctx.fs, ctx.clock);
  std::string json = write_advice_json(report);
  if (!o.output.empty()) write_output(ctx, o.output, json);
  if (o.json)
    ctx.console.data(json);
  else if (o.output != "-")
    ctx.console.data(render_advice(report, o.top));
  return 0;
}

}  // namespace

void add_advise_command(CLI::App& app, AppContext& ctx) {
  auto o = std::make_shared<AdviseOptions>();
  CLI::App* sub = app.add_subcommand("advise", kAdviseHelp);
  add_plan_request_options(sub, o->args);
  add_serving_options(sub, o->args);
  sub->add_option(
      "--buy", o->buy,
      "Machines to price one more of, comma-separated catalog keys (mac-studio-m3-ultra, "
      "dgx-spark; `meshplan chips NAME` shows one); default: one more like each host");
  sub->add_option("--workload", o->workload,
                  "Several models: a workload file (JSON or YAML, docs/workload-file.md)");
  sub->add_option("--changes", o->changes, "Changes made together, at most")
      ->check(CLI::Range(1, 4))
      ->capture_default_str();
  sub->add_option("--budget", o->budget,
                  "Plans to spend on combinations before trying only those of the best changes")
      ->check(CLI::Range(0, 100000))
      ->capture_default_str();
  sub->add_option("--jobs", o->jobs, "Plans made at once (default: one per core)")
      ->check(CLI::Range(0, 1024));
  sub->add_option("--top", o->top, "Rows to print")->capture_default_str();
  sub->add_flag("--json", o->json,
                "Print the advice (JSON, meshplan.advice/1) instead of the table");
  sub->add_option("-o,--output", o->output, "Write the advice (JSON) here, atomically");
  sub->callback([o, &ctx] { ctx.run = [o, &ctx] { return run_advise(*o, ctx); }; });
}

}  // namespace meshplan
