// The plan request's flags, shared by `plan` and `advise`: the options themselves and the rules
// that turn their text into a PlanRequest (token counts, headroom, host lists, pins).
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "solvers/problem/plan_request.hpp"
#include "solvers/problem/request_flags.hpp"

namespace meshplan {

struct PlanRequestArgs {
  std::string cluster;
  std::string model;
  std::string quant;
  std::string hosts;
  std::vector<std::string> pins;
  std::string context = "4096";
  std::string prompt = "512";
  std::string headroom;
  ServingFlags serving;  // --rate, --ttft-ms, --tpot-ms, --min-stream-tps, --output-tokens
  std::string expert_load;
  PlanRequest request;
  PlanRequestArgs() {
    request.strategy = name(StrategyKind::kAuto);
    request.engine = "";  // inferred from the hosts unless --engine names one
  }
};

// -c, -m, --quant, --context, --prompt, --headroom, --strategy, --engine, --solver,
// --allow-uneven, --backend, --hosts, --min-hosts, --max-hosts, --pin, --concurrency.
void add_plan_request_options(CLI::App* sub, PlanRequestArgs& a);
// --objective, --min-stream-tps, --output-tokens.
void add_serving_options(CLI::App* sub, PlanRequestArgs& a);

// --min-stream-tps and --output-tokens into the request (before a workload is read).
void serving_request(const PlanRequestArgs& a, PlanRequest& r);
// The rest: context, prompt, headroom, hosts, pins, and the objective --strategy routed needs.
void model_request(const PlanRequestArgs& a, PlanRequest& r);

}  // namespace meshplan
