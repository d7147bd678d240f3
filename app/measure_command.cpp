#include <fmt/format.h>
#include <unistd.h>

#include <charconv>
#include <iostream>
#include <memory>

#include "app/commands.hpp"
#include "app/topology_args.hpp"
#include "deploy/emit/replica_launch.hpp"
#include "deploy/layout/emit_input.hpp"
#include "deploy/layout/plan_match.hpp"
#include "deploy/measure/measure_report.hpp"
#include "lib/cluster/cluster_writer.hpp"
#include "lib/core/error.hpp"

namespace meshplan {
namespace {

struct MeasureArgs {
  std::string url;
  std::string plan;
  std::string cluster;
  std::string output;
  std::string concurrency;
  int requests = 0;       // 0: per level, twice its concurrency and at least 4
  int prompt_tokens = 0;  // 0: the plan's prompt, else 128
  int output_tokens = 128;
  std::string model;
  double timeout_s = 300;
  std::string api = "completions";
  bool json = false;
};

constexpr const char* kMeasureHelp =
    R"(Measure a running OpenAI-compatible endpoint under a bounded load and compare it with the plan.

Examples:
  meshplan measure --url http://10.0.0.1:8080                     # one stream, 4 requests
  meshplan measure --url http://10.0.0.1:8080 --concurrency 1,4,16 --requests 32
  meshplan measure --url http://gpu-1:8000 --model Qwen/Qwen3-8B --plan plan.json
  meshplan measure --url http://10.0.0.1:52415 --api chat --model llama-3.3-70b   # exo
  meshplan measure --url http://10.0.0.1:8080 --plan plan.json -c cluster.yaml
  meshplan measure --plan plan.json -c cluster.json    # the endpoint `emit` launched for the plan
  meshplan plan -c cluster.yaml -m llama-3.3-70b-4bit      # prints the measured figures too

Each level of --concurrency keeps that many requests in flight over the endpoint: each one that
ends is replaced by the next until the level's --requests are spent (twice the level, at least 4,
by default). Every request streams ("stream": true) from /v1/completions (/v1/chat/completions with
--api chat; exo has only chat) and asks for exactly --output-tokens tokens (max_tokens with
ignore_eos, which llama-server and vLLM honour) after a prompt of about --prompt-tokens tokens
(the word "hello" repeated). Per level: the time to first token (mean and median), the decode
tokens/s of one stream (each request's tokens after the first over the time from its first to its
last; the mean), and the tokens/s in all (every token over the level's wall time). A streamed chunk
with text counts as a token unless the server counts them (usage, llama-server's timings);
llama-server's own decode rate is shown beside.

Without --url, --plan and -c give the endpoint: the host the plan's engine serves from (llama-server
on the main host, vLLM's node 0, mlx_lm.server on mlx.launch's rank 0, exo's first host) at its
management address and the engine's port, as `emit` launches it; a plan of replicas needs --url
(nginx's host). --plan PLAN takes the levels from the plan (its serving concurrency, else 1), the prompt from its
prompt and prints its prediction beside the level it predicts. With -c CLUSTER (and --plan) the
levels are written into the cluster file (JSON, atomically; -o FILE writes them there instead)
under measured_serving, with the date, the URL and the plan's model, engine and hosts; `plan`
for that model and engine over those hosts then prints them beside its prediction.
An endpoint that refuses, times out (--timeout-s per request), answers other than 200 or streams
something else exits with 3 and writes nothing.)";

// "1,4,16": levels in the order given, each once.
std::vector<int> parse_levels(const std::string& text) {
  std::vector<int> levels;
  std::string_view rest = text;
  while (true) {
    const size_t comma = rest.find(',');
    std::string_view item = rest.substr(0, comma);
    int n = 0;
    auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), n);
    if (item.empty() || ec != std::errc() || end != item.data() + item.size() || n < 1 || n > 4096)
      throw input_error("--concurrency {}: expected requests in flight, 1-4096 each, as 1,4,16",
                        text);
    if (std::find(levels.begin(), levels.end(), n) != levels.end())
      throw input_error("--concurrency {}: {} is given twice", text, n);
    levels.push_back(n);
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  return levels;
}

void check_args(const MeasureArgs& a) {
  if (a.output_tokens < 2 || a.output_tokens > 1000000)
    throw input_error("--output-tokens {}: expected 2-1000000 (the decode rate needs two tokens)",
                      a.output_tokens);
  if (a.prompt_tokens < 0 || a.prompt_tokens > 1000000)
    throw input_error("--prompt-tokens {}: expected 1-1000000", a.prompt_tokens);
  if (a.requests < 0 || a.requests > 1000000)
    throw input_error("--requests {}: expected 1-1000000 requests a level", a.requests);
  if (!(a.timeout_s >= 1 && a.timeout_s <= 86400))
    throw input_error("--timeout-s {}: expected 1-86400 seconds a request", a.timeout_s);
  if (!a.cluster.empty() && a.plan.empty())
    throw input_error(
        "-c {}: the measured figures are recorded for the plan's model, engine and hosts; give "
        "the plan with --plan",
        a.cluster);
  if (a.cluster == "-" && a.output.empty())
    throw input_error("-c -: the cluster read from stdin needs -o FILE for the measured figures");
  if (a.output == "-" && a.json)
    throw input_error("-o - and --json both print to stdout; give -o FILE");
  if (!a.output.empty() && a.cluster.empty())
    throw input_error("-o {}: -o writes the cluster of -c with the measured figures; give -c",
                      a.output);
}

// The progress of a level: a line rewritten on a terminal, else nothing between levels.
std::function<void(int)> progress_line(AppContext& ctx, int level, int requests) {
  const bool live = &ctx.console.err_stream() == &std::cerr && ::isatty(STDERR_FILENO) &&
                    ctx.console.verbosity >= 0;
  if (!live) return {};
  return [&ctx, level, requests](int done) {
    ctx.console.err_stream() << fmt::format("\rmeasure: concurrency {}: {}/{} requests done\033[K",
                                            level, done, requests)
                             << std::flush;
  };
}

std::vector<LevelResult> measure_levels(const MeasureArgs& a, const LoadOptions& load,
                                        const std::vector<int>& levels, AppContext& ctx) {
  SteadyClock clock;
  auto client = make_socket_http_client(clock);
  std::vector<LevelResult> done;
  for (int level : levels) {
    const int requests = a.requests > 0 ? a.requests : std::max(4, 2 * level);
    if (requests < level)
      throw input_error(
          "--requests {}: below the concurrency {}; each level needs at least as "
          "many requests as it keeps in flight",
          requests, level);
    ctx.console.note(fmt::format("concurrency {}: {} requests of {} tokens to {}", level, requests,
                                 load.request.output_tokens, load.url.origin()));
    auto progress = progress_line(ctx, level, requests);
    try {
      done.push_back(run_level(*client, clock, load, level, requests, progress));
    } catch (const Error&) {
      if (progress) ctx.console.err_stream() << "\r\033[K" << std::flush;
      if (!done.empty())
        ctx.console.note(fmt::format("{} level{} measured before the failure; nothing written",
                                     done.size(), done.size() == 1 ? " was" : "s were"));
      throw;
    }
    if (progress) ctx.console.err_stream() << "\r\033[K" << std::flush;
    const LevelResult& r = done.back();
    ctx.console.note(fmt::format(
        "concurrency {}: {} requests in {:.1f} s, TTFT {:.0f} ms, {:.1f} tokens/s a stream, "
        "{:.1f} in all",
        level, r.requests, r.wall_s, r.ttft_mean_s * 1e3, r.stream_tokens_per_s,
        r.total_tokens_per_s));
    if (!(r.stream_tokens_per_s > 0))
      throw endpoint_failure(
          "{}: concurrency {}: no answer had two tokens or more, so there is no decode rate (the "
          "server stops early: ignore_eos is llama-server's and vLLM's)",
          load.url.origin(), level);
    if (r.fewest_tokens < a.output_tokens)
      ctx.console.warn(fmt::format(
          "concurrency {}: an answer had {} tokens, not the {} asked: the server stopped early "
          "(ignore_eos is llama-server's and vLLM's); the rates are over the tokens it sent",
          level, r.fewest_tokens, a.output_tokens));
  }
  return done;
}

// The endpoint of a one-copy plan as launched by `emit`: its serving host's management address and
// its engine's HTTP port.
std::string endpoint_of_plan(const MeasureArgs& a, AppContext& ctx,
                             const std::optional<Cluster>& cluster) {
  if (a.plan.empty() || !cluster)
    throw input_error(
        "measure needs --url http://HOST:PORT, or --plan PLAN and -c CLUSTER to ask the host "
        "the plan's engine answers on");
  auto plan = read_plan_arg(ctx, a.plan);
  TopologyContext topo(*cluster, ctx.catalog);
  const std::string backend(name(MlxBackend::kAuto));
  CheckReport report = check_plan_against_cluster(topo, backend, plan);
  EmitInput input{*cluster, topo, report, plan, backend, {}, {}, {}};
  return plan_endpoint_url(input);
}

int run_measure_command(const MeasureArgs& a, AppContext& ctx) {
  check_args(a);
  LoadOptions load;
  if (!a.url.empty()) load.url = parse_http_url(a.url);
  load.timeout_s = a.timeout_s;
  load.request.api = parse_completion_api(a.api);
  load.request.model = a.model;
  load.request.output_tokens = a.output_tokens;
  // Inputs first: a bad plan or cluster file should not wait for a measurement.
  std::optional<PlanPrediction> plan;
  if (!a.plan.empty()) plan = read_plan_prediction(parse_document(read_input(ctx, a.plan), a.plan));
  std::optional<Cluster> cluster;
  if (!a.cluster.empty()) cluster = read_cluster_arg(ctx, a.cluster);
  if (a.url.empty()) load.url = parse_http_url(endpoint_of_plan(a, ctx, cluster));
  std::vector<int> levels = a.concurrency.empty() ? std::vector<int>{plan ? plan->concurrency : 1}
                                                  : parse_levels(a.concurrency);
  load.request.prompt_tokens =
      a.prompt_tokens > 0 ? a.prompt_tokens
                          : (plan && plan->prompt_tokens > 0
                                 ? static_cast<int>(std::min<int64_t>(plan->prompt_tokens, 1000000))
                                 : 128);

  MeasureReport report;
  report.url = load.url.origin();
  report.api = a.api;
  report.prompt_tokens = load.request.prompt_tokens;
  report.output_tokens = a.output_tokens;
  report.plan = plan;
  report.levels = measure_levels(a, load, levels, ctx);

  if (a.json)
    ctx.console.data(measure_to_json(report).dump(2) + "\n");
  else if (a.output == "-")  // stdout carries the cluster
    ctx.console.err_stream() << render_measure_table(report) << std::flush;
  else
    ctx.console.data(render_measure_table(report));
  if (cluster) {
    const std::string to = a.output.empty() ? a.cluster : a.output;
    write_output(ctx, to,
                 write_cluster_json(
                     with_measured_serving(*cluster, *plan, report.url, report.levels, today())));
    if (to != "-")
      ctx.console.note(fmt::format(
          "wrote {} measured level{} of {} into {} (measured_serving); plan prints them",
          report.levels.size(), report.levels.size() == 1 ? "" : "s", plan->model, to));
  }
  return 0;
}

}  // namespace

void add_measure_command(CLI::App& app, AppContext& ctx) {
  auto a = std::make_shared<MeasureArgs>();
  CLI::App* sub = app.add_subcommand("measure", kMeasureHelp);
  sub->add_option("--url", a->url,
                  "The endpoint, http://HOST:PORT (an address or a name); default: the host and "
                  "port the plan's engine answers on (needs --plan and -c)");
  sub->add_option("--plan", a->plan,
                  "Plan file: its concurrency, prompt and prediction (and what -c records)");
  sub->add_option("-c,--cluster", a->cluster,
                  "Cluster file to record the measured levels in (needs --plan)");
  sub->add_option("-o,--output", a->output,
                  "Write the cluster with the measured levels here instead of back into -c");
  sub->add_option("--concurrency", a->concurrency,
                  "Requests in flight, one level each: 1,4,16 (default: the plan's, else 1)");
  sub->add_option("--requests", a->requests,
                  "Requests a level (default: twice its concurrency, at least 4)");
  sub->add_option("--prompt-tokens", a->prompt_tokens,
                  "Prompt tokens, about (default: the plan's prompt, else 128)");
  sub->add_option("--output-tokens", a->output_tokens, "Tokens generated per request")
      ->capture_default_str();
  sub->add_option("--model", a->model,
                  "The model name the server serves (left out of the requests when not given)");
  sub->add_option("--timeout-s", a->timeout_s, "Seconds each request may take, start to end")
      ->capture_default_str();
  sub->add_option("--api", a->api, "completions (/v1/completions) or chat (/v1/chat/completions)")
      ->capture_default_str();
  sub->add_flag("--json", a->json, "Print the levels as JSON (meshplan.measure/1)");
  sub->callback([a, &ctx] { ctx.run = [a, &ctx] { return run_measure_command(*a, ctx); }; });
}

}  // namespace meshplan
