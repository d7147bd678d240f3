#include <memory>

#include <nlohmann/json.hpp>
#include "app/commands.hpp"
#include "app/topology_args.hpp"

#include "lib/core/error.hpp"
#include "lib/core/shell_quote.hpp"
#include "lib/core/units.hpp"
#include "lib/models/expert_load.hpp"
#include "lib/models/model_loader.hpp"
#include "lib/plan/engines.hpp"
#include "lib/plan/plan_json.hpp"
#include "lib/plan/plan_report.hpp"
#include "lib/plan/plan_serving.hpp"
#include "solvers/plan_request.hpp"
#include "solvers/serving_planner.hpp"
#include "solvers/strategy_planner.hpp"
#include "solvers/workload.hpp"
#include "solvers/workload_planner.hpp"
#include "topologies/cluster_loader.hpp"

namespace meshplan {
namespace {

struct PlanOptions {
  std::string cluster;
  std::string model;
  std::string quant;
  std::string hosts;
  std::vector<std::string> pins;
  std::string output;
  std::string expert_load;
  std::string context = "4096";
  std::string prompt = "512";
  std::string headroom;
  std::string workload;
  std::string output_tokens;
  std::string profile;
  bool json = false;
  PlanRequest request;
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
file (meshplan.plan/1); -o writes it atomically. A model that does not fit exits with 1 and names
the host and the bytes missing.

Serving: --concurrency N decodes N streams per replica (weights read once per step, each stream
its own KV) and reports per-stream and aggregate tokens/s, the streams' KV and the most that fit.
--objective throughput maximises aggregate tokens/s (with --min-stream-tps X, every stream gets at
least X) and may split the hosts into replicas; --workload FILE places several models (README);
with any of these, the plan also compares serving shapes by end-to-end time per request, among them
prefill on one host and decode on another (it pays for prompts of 8192 tokens and more).

Routed serving: --strategy routed gives every host one range of layers and routes each request
through any chain of hosts whose ranges join, for the most aggregate tokens/s (the maximum flow;
exact on small clusters, with an upper bound and the best single pipeline and disjoint replicas as
baselines). Host speeds come from --profile FILE (tokens/s per number of layers held; `meshplan
profile` writes the cost model's own) or the cost model. `--objective throughput` with --strategy
auto considers routed plans too. `emit routing --plan P` writes the routing table.)";

std::vector<std::string> engine_choices() {
  std::vector<std::string> names = engine_name_list();
  names.insert(names.end(), {"any"});
  return names;
}

// "m3-ultra-1=0-20" -> host m3-ultra-1, layers [0, 21).
LayerPin parse_pin(const std::string& text) {
  auto eq = text.find('=');
  auto dash = text.find('-', eq == std::string::npos ? 0 : eq);
  if (eq == std::string::npos || dash == std::string::npos || eq == 0)
    throw input_error(
        "--pin {}: expected HOST=FIRST-LAST, e.g. m3-ultra-1=0-20 (layers 0 to 20 inclusive)",
        text);
  LayerPin pin;
  pin.host = text.substr(0, eq);
  try {
    size_t used = 0;
    std::string a = text.substr(eq + 1, dash - eq - 1), b = text.substr(dash + 1);
    pin.start = std::stoi(a, &used);
    if (used != a.size()) throw std::invalid_argument(a);
    pin.end = std::stoi(b, &used) + 1;
    if (used != b.size()) throw std::invalid_argument(b);
  } catch (const std::exception&) {
    throw input_error("--pin {}: expected HOST=FIRST-LAST with layer numbers, e.g. m3-ultra-1=0-20",
                      text);
  }
  if (pin.start < 0 || pin.end <= pin.start)
    throw input_error("--pin {}: the last layer must not be before the first", text);
  return pin;
}

// "10%", "0.1" (a fraction of each host's usable memory) or "8GiB" (bytes per host).
void parse_headroom(const std::string& text, PlanRequest& r) {
  std::string t = trim(text);
  const char* form =
      "expected a fraction of each host's usable memory (0.1 or 10%) or a size "
      "(8GiB)";
  if (!t.empty() && t.back() == '%') {
    try {
      size_t used = 0;
      double v = std::stod(t.substr(0, t.size() - 1), &used);
      if (used != t.size() - 1 || v < 0 || v >= 100) throw std::invalid_argument(t);
      r.headroom_fraction = v / 100;
      return;
    } catch (const std::exception&) {
      throw input_error("--headroom {}: {}", text, form);
    }
  }
  if (t.find_first_not_of("0123456789.") == std::string::npos && !t.empty()) {
    double v = 0;
    try {
      v = std::stod(t);
    } catch (const std::exception&) {
      throw input_error("--headroom {}: {}", text, form);
    }
    if (v < 0 || v >= 1) throw input_error("--headroom {}: {}; a fraction is below 1", text, form);
    r.headroom_fraction = v;
    return;
  }
  auto bytes = parse_bytes(t);
  if (!bytes || *bytes < 0) throw input_error("--headroom {}: {}", text, form);
  r.headroom_bytes = *bytes;
}

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
  Cluster cluster = read_cluster_arg(ctx, o.cluster);
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
  PlanRequest request = o.request;
  if (request.min_stream_tps < 0)
    throw input_error("--min-stream-tps {}: expected tokens/s, 0 or more", request.min_stream_tps);
  if (request.min_stream_tps > 0 && request.objective.empty()) request.objective = "throughput";
  if (!o.output_tokens.empty())
    request.output_tokens = token_count("--output-tokens", o.output_tokens);
  if (!o.workload.empty()) {
    if (!o.model.empty())
      throw input_error("--workload lists the models; leave out -m/--model {}", o.model);
    return run_workload(o, request, ctx);
  }
  if (o.model.empty()) throw input_error("--model is required (or --workload FILE)");
  request.context = token_count("--context", o.context);
  request.prompt = o.prompt == "0" ? 0 : token_count("--prompt", o.prompt);
  if (!o.headroom.empty()) parse_headroom(o.headroom, request);
  if (!o.hosts.empty()) request.hosts = split_list(o.hosts);
  for (const auto& p : o.pins)
    request.pins.push_back(parse_pin(p));
  ModelDesc model = load_model(o.model, o.quant, ctx.fs);
  step("model");
  RoutedRequest routed;
  routed.started_at = began;
  std::vector<std::pair<std::string, double>> routed_timings;
  routed.timings = &routed_timings;
  if (request.strategy == "routed") {
    if (request.objective == "latency")
      throw input_error("--strategy routed plans for --objective throughput, not latency");
    request.objective = "throughput";
  }
  if (!o.profile.empty()) {
    if (request.objective != "throughput")
      throw input_error(
          "--profile {}: profiles are for --objective throughput (--strategy routed or auto)",
          o.profile);
    routed.profile = parse_throughput_profile(read_input(ctx, o.profile), o.profile);
    routed.profile_where = o.profile;
    step("profile");
  }
  routed.model_id = o.model;
  routed.consider_in_auto = true;
  if (!o.expert_load.empty()) {
    request.expert_load = parse_expert_load(read_input(ctx, o.expert_load), o.expert_load, model);
  }
  Cluster cluster = read_cluster_arg(ctx, o.cluster);
  step("cluster");
  Plan plan;
  try {
    plan = request.serving() ? plan_serving(cluster, ctx.catalog, model, request, ctx.clock, routed)
                             : plan_model(cluster, ctx.catalog, model, request, ctx.clock);
  } catch (const Error& e) {
    // --json readers get an object on stdout for a plan that cannot be made, too.
    if (o.json && e.kind() == ErrorKind::kFailed) {
      nlohmann::ordered_json j;
      j["schema"] = kPlanSchema;
      j["feasible"] = false;
      j["model"] = model.name;
      j["error"] = e.what();
      j["exit_code"] = exit_code(e.kind());
      ctx.console.data(j.dump(2) + "\n");
    }
    throw;
  }
  step("plan");
  // -v: the figures behind the prediction, per candidate host.
  for (const HostInfo& h : plan.hosts)
    ctx.console.info(fmt::format(
        "{}: usable {} ({}), {:.0f} GB/s and {:.1f} TFLOP/s (decode) effective{}{}", h.name,
        format_gib(h.usable_bytes), h.usable_rule, h.bandwidth / 1e9, h.flops / 1e12,
        h.gpus > 1 && h.tp > 1 && h.tp < h.gpus
            ? fmt::format(", {} GPUs: layers split over groups of {} ({}), the groups a pipeline",
                          h.gpus, h.tp, h.gpu_link)
        : h.gpus > 1 && h.tp > 1
            ? fmt::format(", layers split over {} GPUs ({})", h.gpus, h.gpu_link)
        : h.gpus > 1 ? fmt::format(", {} GPUs as a pipeline", h.gpus)
                     : "",
        h.used ? "" : ", not used"));
  std::string json = write_plan_json(plan, model);
  if (!o.output.empty()) write_output(ctx, o.output, json);
  if (o.json)
    ctx.console.data(json);
  else if (o.output != "-")
    ctx.console.data(render_plan(plan) + render_engine_verdicts(plan, cluster, ctx.catalog) +
                     launch_line(o.cluster, o.output));
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
  o->request.strategy = "auto";
  o->request.engine = "";  // inferred from the hosts unless --engine names one
  CLI::App* sub = app.add_subcommand("plan", kPlanHelp);
  sub->add_option("-c,--cluster", o->cluster, "Cluster file (JSON or YAML, - for stdin)")
      ->required();
  sub->add_option("-m,--model", o->model,
                  "Model name (see `meshplan models`), model folder or config.json");
  sub->add_option("--quant", o->quant,
                  "Quantization, overriding the model name's (4bit, 8bit, bf16, ...)");
  sub->add_option("--context", o->context,
                  "Context length in tokens the KV cache must hold (32768, 32k, 128K)")
      ->capture_default_str();
  sub->add_option("--prompt", o->prompt, "Prompt length in tokens for the TTFT prediction (2k)")
      ->capture_default_str();
  sub->add_option("--headroom", o->headroom,
                  "Memory to keep free on every host: a fraction of its usable memory (10%, 0.1) "
                  "or a size (8GiB)");
  sub->add_option("--strategy", o->request.strategy,
                  "auto (the fastest of the others), pipeline (layer ranges), tensor (shares of "
                  "every layer) or "
                  "expert (MoE experts spread over the hosts), hybrid (tensor parallel inside "
                  "groups of hosts, a pipeline between them) or routed (layer ranges with "
                  "requests routed by max flow; throughput)")
      ->check(CLI::IsMember({"auto", "pipeline", "tensor", "expert", "hybrid", "routed"}))
      ->capture_default_str();
  sub->add_option("--engine", o->request.engine,
                  "The engine that will run the plan: mlx-lm, exo, llama-rpc, vllm, or any (the "
                  "fastest layout whatever runs it); default: inferred from the hosts")
      ->check(CLI::IsMember(engine_choices()));
  sub->add_option("--solver", o->request.solver,
                  "optimal (best hosts, ring order and layer ranges; exact up to 12 hosts), even "
                  "(mlx-lm's equal split), proportional (exo 1.0's "
                  "memory-proportional split) or proportional-v0 (exo 0.0.x); ilp: place experts "
                  "with GLPK's "
                  "integer program (expert parallel)")
      ->check(CLI::IsMember({"optimal", "even", "proportional", "proportional-v0", "ilp"}))
      ->capture_default_str();
  sub->add_flag("--allow-uneven", o->request.allow_uneven,
                "Tensor parallel: shares in proportion to speed and memory (needs engine support "
                "for uneven shards)");
  sub->add_option(
      "--expert-load", o->expert_load,
      "Expert parallel: measured expert frequencies per MoE layer (JSON or YAML, README)");
  sub->add_option("--backend", o->request.backend,
                  "Links a plan may use: auto, ring, jaccl, jaccl-ring, ethernet")
      ->check(CLI::IsMember({"auto", "ring", "jaccl", "jaccl-ring", "ethernet"}))
      ->capture_default_str();
  sub->add_option("--hosts", o->hosts,
                  "Candidate hosts in ring order, comma-separated (ranges: mac[1-4])");
  sub->add_option("--min-hosts", o->request.min_hosts,
                  "Use at least this many hosts (optimal solver)")
      ->check(CLI::NonNegativeNumber);
  sub->add_option("--max-hosts", o->request.max_hosts,
                  "Use at most this many hosts (optimal solver)")
      ->check(CLI::NonNegativeNumber);
  sub->add_option("--pin", o->pins, "Fix a host's layers: HOST=FIRST-LAST (inclusive), repeatable");
  sub->add_option("--concurrency", o->request.concurrency,
                  "Streams decoded together per replica (default: 1, or the best that fits for "
                  "--objective throughput)")
      ->check(CLI::Range(1, 4096));
  sub->add_option("--profile", o->profile,
                  "Routed serving: measured tokens/s per host and layers held (YAML or JSON, "
                  "README \"profile\")");
  sub->add_option("--objective", o->request.objective,
                  "latency (time per token of one stream) or throughput (aggregate tokens/s)")
      ->check(CLI::IsMember({"latency", "throughput"}));
  sub->add_option("--min-stream-tps", o->request.min_stream_tps,
                  "With --objective throughput: tokens/s every stream must get at least");
  sub->add_option("--output-tokens", o->output_tokens,
                  "Tokens generated per request, for end-to-end times of the serving shapes (256)");
  sub->add_option("--workload", o->workload,
                  "Several models: a workload file (JSON or YAML, README \"Workload file\")");
  sub->add_flag("--json", o->json, "Print the plan file (JSON) instead of the table");
  sub->add_option("-o,--output", o->output, "Write the plan file (JSON) here, atomically");
  sub->callback([o, &ctx] { ctx.run = [o, &ctx] { return run_plan(*o, ctx); }; });
}

}  // namespace meshplan
