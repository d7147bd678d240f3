#include "app/plan_args.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "app/commands.hpp"
#include "lib/cluster/mlx_backend.hpp"
#include "lib/core/error.hpp"
#include "lib/core/units.hpp"
#include "lib/plan/engines.hpp"
#include "lib/plan/strategy_kind.hpp"
#include "solvers/problem/request_flags.hpp"

namespace meshplan {
namespace {

std::vector<std::string> engine_choices() {
  std::vector<std::string> names = engine_name_list();
  names.insert(names.end(), {"any"});
  return names;
}

}  // namespace

void add_plan_request_options(CLI::App* sub, PlanRequestArgs& a) {
  sub->add_option("-c,--cluster", a.cluster, "Cluster file (JSON or YAML, - for stdin)")
      ->required();
  sub->add_option("-m,--model", a.model,
                  "Model name (see `meshplan models`), model folder or config.json");
  sub->add_option("--quant", a.quant,
                  "Quantization, overriding the model name's (4bit, 8bit, bf16, ...)");
  sub->add_option("--context", a.context,
                  "Context length in tokens the KV cache must hold (32768, 32k, 128K)")
      ->capture_default_str();
  sub->add_option("--prompt", a.prompt, "Prompt length in tokens for the TTFT prediction (2k)")
      ->capture_default_str();
  sub->add_option("--headroom", a.headroom,
                  "Memory to keep free on every host: a fraction of its usable memory (10%, 0.1) "
                  "or a size (8GiB)");
  sub->add_option("--strategy", a.request.strategy, strategy_help())
      ->check(CLI::IsMember(strategy_choices()))
      ->capture_default_str();
  sub->add_option("--engine", a.request.engine,
                  fmt::format("The engine that will run the plan: {}, or any (the fastest layout "
                              "whatever runs it); default: inferred from the hosts",
                              fmt::join(engine_name_list(), ", ")))
      ->check(CLI::IsMember(engine_choices()));
  sub->add_option("--solver", a.request.solver,
                  "optimal (best hosts, ring order and layer ranges; exact up to 12 hosts), even "
                  "(mlx-lm's equal split), proportional (exo 1.0's "
                  "memory-proportional split) or proportional-v0 (exo 0.0.x): each plans a "
                  "pipeline (--strategy auto becomes pipeline); ilp: place experts with GLPK's "
                  "integer program (expert parallel)")
      ->check(CLI::IsMember({"optimal", "even", "proportional", "proportional-v0", "ilp"}))
      ->capture_default_str();
  sub->add_option("--tensor-degree", a.request.tensor_degree,
                  "Hosts of several GPUs: split each layer over groups of N of them, the rest of "
                  "a host's GPUs as pipeline stages (vLLM's -tp inside a node); default: the "
                  "fastest degree per host")
      ->check(CLI::Range(1, 64));
  sub->add_flag("--allow-uneven", a.request.allow_uneven,
                "Tensor parallel: shares in proportion to speed and memory (needs engine support "
                "for uneven shards)");
  sub->add_option("--expert-load", a.expert_load,
                  "Expert parallel: measured expert frequencies per MoE layer (JSON or YAML, "
                  "docs/expert-load-file.md)");
  sub->add_option("--backend", a.request.backend,
                  fmt::format("Links a plan may use: {}", fmt::join(mlx_backend_choices(), ", ")))
      ->check(CLI::IsMember(mlx_backend_choices()))
      ->capture_default_str();
  sub->add_option("--hosts", a.hosts,
                  "Candidate hosts in ring order, comma-separated (ranges: mac[1-4])");
  sub->add_option("--min-hosts", a.request.min_hosts,
                  "Use at least this many hosts (optimal solver)")
      ->check(CLI::NonNegativeNumber);
  sub->add_option("--max-hosts", a.request.max_hosts,
                  "Use at most this many hosts (optimal solver)")
      ->check(CLI::NonNegativeNumber);
  sub->add_option("--pin", a.pins, "Fix a host's layers: HOST=FIRST-LAST (inclusive), repeatable");
  sub->add_option("--concurrency", a.request.concurrency,
                  "Requests in flight in total, shared by the replicas (each finished one "
                  "replaced at once); default: 1, or as many as serve the most with --objective "
                  "throughput")
      ->check(CLI::Range(1, 4096));
}

void add_serving_options(CLI::App* sub, PlanRequestArgs& a) {
  sub->add_option("--objective", a.request.objective,
                  "latency (time per token of one stream) or throughput (aggregate tokens/s)")
      ->check(CLI::IsMember({"latency", "throughput"}));
  sub->add_option("--rate", a.serving.rate,
                  "The load as requests arriving a second (Poisson), instead of --concurrency");
  sub->add_option("--ttft-ms", a.serving.ttft_ms,
                  "Target: the mean time to first token under the load, in ms");
  sub->add_option("--tpot-ms", a.serving.tpot_ms,
                  "Target: the mean time per output token under the load, in ms");
  sub->add_option("--min-stream-tps", a.serving.min_stream_tps,
                  "Target: tokens/s every stream gets at least (--tpot-ms 1000/X)");
  sub->add_option("--output-tokens", a.serving.output_tokens,
                  "Tokens generated per request, for end-to-end times of the serving shapes (256)");
}

void serving_request(const PlanRequestArgs& a, PlanRequest& request) {
  apply_serving_flags(a.serving, request);
}

void model_request(const PlanRequestArgs& a, PlanRequest& request) {
  RequestFlags f;
  f.context = a.context;
  f.prompt = a.prompt;
  f.headroom = a.headroom;
  if (!a.hosts.empty()) f.hosts = split_list(a.hosts);
  f.pins = a.pins;
  apply_request_flags(f, request);
}

}  // namespace meshplan
