// What a measurement is compared with and where it goes: the plan's prediction read from its
// file (model, engine, hosts, streams in flight, tokens/s a stream and in all, time to first
// token), the cluster's `measured_serving` entries written from the levels measured, and the
// entries `plan` shows beside a new plan of the same model and engine over the same hosts.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "deploy/measure/load_runner.hpp"
#include "lib/cluster/cluster.hpp"
#include "lib/core/document.hpp"
#include "lib/core/json_util.hpp"
#include "lib/plan/plan.hpp"

namespace meshplan {

struct PlanPrediction {
  std::string model;               // model.name
  std::string engine;              // "" when the plan names none
  std::vector<std::string> hosts;  // its ranks' and replicas', each once, in plan order
  // Requests in flight it predicts for: serving.concurrency times its replicas, else 1.
  int concurrency = 1;
  int64_t prompt_tokens = 0;  // the prompt the TTFT is for
  double stream_tps = 0;      // decode tokens/s of one stream at that concurrency
  double total_tps = 0;       // of all streams
  double ttft_ms = 0;
};

// A plan file (meshplan.plan/2); input errors name the position. A workload plan is refused:
// each of its models is served and measured on its own.
PlanPrediction read_plan_prediction(const DocNode& root);

// `cluster` with one entry per level (dated `date`), replacing earlier entries of the same
// model, engine, hosts and concurrency.
Cluster with_measured_serving(Cluster cluster, const PlanPrediction& plan, const std::string& url,
                              const std::vector<LevelResult>& levels, const std::string& date);

// The cluster's entries for this model and engine over these hosts (any order), the newest date
// only, by concurrency.
std::vector<MeasuredServing> measured_for(const Cluster& cluster, const std::string& model,
                                          const std::string& engine,
                                          std::vector<std::string> hosts);

// What a freshly made plan predicts a stream at `concurrency` (nullopt: it predicts for another).
std::optional<double> predicted_stream_tps(const Plan& plan, int concurrency);
// The entries for `plan`'s model, engine and hosts, one line each, for the plan's table:
// "Measured 2026-11-27 at concurrency 1: 221 tokens/s a stream, 221 in all, TTFT 180 ms
// (predicted 240 a stream)".
std::vector<std::string> measured_lines(const Cluster& cluster, const Plan& plan);
// The same entries for the plan file's "measured" list (empty array when none).
ojson measured_json(const Cluster& cluster, const Plan& plan);

}  // namespace meshplan
