// What `meshplan plan` was asked: the strategy and solver, the backend whose links it may use, the
// context and prompt, and the user's constraints (candidate hosts, host counts, layer pins).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "lib/cluster/mlx_backend.hpp"
#include "lib/models/expert_load.hpp"
#include "lib/plan/strategy_kind.hpp"

namespace meshplan {

struct LayerPin {
  std::string host;
  int start = 0;  // [start, end)
  int end = 0;
};

// Tokens generated per request when --output-tokens is not given.
inline constexpr int64_t kDefaultOutputTokens = 256;

struct PlanRequest {
  std::string strategy = std::string(name(StrategyKind::kPipeline));
  std::string solver =
      "optimal";  // optimal, proportional, proportional-v0 (pipeline); ilp (expert)
  std::string backend = std::string(name(MlxBackend::kAuto));  // or one of all_mlx_backends()
  // The engine that will run the plan (lib/plan/engines.hpp): "" = inferred from the hosts (what
  // `meshplan plan` asks by default), "any" = the fastest layout whatever runs it.
  std::string engine = "any";
  int64_t context = 4096;
  int64_t prompt = 512;
  // Memory kept free on every host beyond weights and KV: a fraction of its usable memory, or
  // bytes (--headroom 10% / 0.1 / 8GiB).
  double headroom_fraction = 0;
  double headroom_bytes = 0;
  std::vector<std::string> hosts;  // candidates, in ring order; empty = every host in file order
  int min_hosts = 0;
  int max_hosts = 0;  // 0 = no limit
  std::vector<LayerPin> pins;
  // Tensor and expert parallel.
  bool allow_uneven = false;  // tensor shares proportional to speed and memory
  // Hosts of several GPUs: split each layer over groups of this many of them (vLLM's
  // --tensor-parallel-size inside a node, the rest of the host's GPUs as pipeline stages);
  // 0 = the fastest degree per kind of host.
  int tensor_degree = 0;
  std::optional<ExpertLoad> expert_load;  // per-layer expert frequencies; empty = uniform
  // Serving (solvers/serving/serving_planner.hpp, docs/serving.md): the load, either requests in
  // flight in total over every replica (a closed loop; 0 = not given: one, or as many as fit for
  // the throughput objective) or requests arriving a second (Poisson; 0 = not given); what is
  // optimised; the mean time to first token and per output token every request must see (0 =
  // no target); the tokens generated per request.
  int concurrency = 0;
  double rate = 0;
  std::string objective;  // "" (latency, today's plan), "latency", "throughput"
  double ttft_target_s = 0;
  double tpot_target_s = 0;
  int64_t output_tokens = 0;  // 0 = not given (kDefaultOutputTokens)
  int64_t output_tokens_or_default() const {
    return output_tokens > 0 ? output_tokens : kDefaultOutputTokens;
  }
  bool serving() const {
    return concurrency > 0 || rate > 0 || !objective.empty() || ttft_target_s > 0 ||
           tpot_target_s > 0 || output_tokens > 0;
  }
};

// How plans of different strategies compare, higher being better; negative: the plan cannot
// meet the request. Empty: by predicted decode tokens/s of one stream (the latency objective).
struct Plan;
using PlanScore = std::function<double(const Plan&)>;

}  // namespace meshplan
