#include "solvers/strategy_planner.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "lib/error.hpp"
#include "solvers/allreduce_paths.hpp"
#include "solvers/expert_parallel.hpp"
#include "solvers/plan_inputs.hpp"
#include "solvers/tensor_parallel.hpp"

namespace meshplan {
namespace {

constexpr const char* kPinReason = "--pin fixes layer ranges, which only a pipeline plan has";

struct Outcome {
  std::string strategy;
  std::optional<Plan> plan;
  std::string reason;
};

PlanRequest pipeline_request(const PlanRequest& request) {
  PlanRequest r = request;
  r.strategy = "pipeline";
  if (r.solver == "ilp") r.solver = PlanRequest{}.solver;
  return r;
}

Outcome run_pipeline(const Cluster& cluster, const Catalog& catalog, const ModelDesc& model,
                     const PlanRequest& request, const Clock& clock) {
  Outcome o{"pipeline", std::nullopt, ""};
  try {
    o.plan = make_plan(cluster, catalog, model, pipeline_request(request), clock);
  } catch (const Error& e) {
    if (e.kind() != ErrorKind::kFailed) throw;
    o.reason = e.what();
  }
  return o;
}

// The memory-proportional pipeline on the plan's hosts, in rank order.
void add_proportional_baseline(Plan& plan, const Cluster& cluster, const Catalog& catalog,
                               const ModelDesc& model, const PlanRequest& request,
                               const Clock& clock) {
  PlanRequest r = pipeline_request(request);
  r.solver = "proportional";
  r.pins.clear();
  r.hosts.clear();
  for (const auto& rank : plan.ranks)
    r.hosts.push_back(rank.host);
  r.min_hosts = r.max_hosts = static_cast<int>(r.hosts.size());
  BaselineInfo b;
  b.solver = "proportional";
  b.hosts = r.hosts;
  try {
    Plan p = make_plan(cluster, catalog, model, r, clock);
    b.feasible = true;
    b.token_latency_s = p.predicted.token_latency_s;
    b.decode_tokens_per_s = p.predicted.decode_tokens_per_s;
    b.speedup = plan.predicted.decode_tokens_per_s / b.decode_tokens_per_s;
  } catch (const Error& e) {
    if (e.kind() != ErrorKind::kFailed) throw;
    b.note = e.what();
  }
  plan.baselines.insert(plan.baselines.begin(), b);
}

Alternative alternative(const Outcome& o, const Plan* chosen) {
  Alternative a;
  a.strategy = o.strategy;
  a.feasible = o.plan.has_value();
  if (o.plan) {
    a.token_latency_s = o.plan->predicted.token_latency_s;
    a.decode_tokens_per_s = o.plan->predicted.decode_tokens_per_s;
    a.backend = o.plan->backend;
    for (const auto& r : o.plan->ranks)
      a.hosts.push_back(r.host);
    if (chosen) {
      const double ratio = chosen->predicted.decode_tokens_per_s / a.decode_tokens_per_s;
      a.reason = ratio <= 1 + 1e-9 ? fmt::format("as fast as the {} plan", chosen->strategy)
                                   : fmt::format("{:.{}f}x slower than the {} plan", ratio,
                                                 ratio < 1.01 ? 3 : 2, chosen->strategy);
    }
  } else {
    a.reason = o.reason;
  }
  return a;
}

}  // namespace

Plan plan_model(const Cluster& cluster, const Catalog& catalog, const ModelDesc& model,
                const PlanRequest& request, const Clock& clock) {
  const std::string& s = request.strategy;
  if (s != "auto" && s != "pipeline" && s != "tensor" && s != "expert") {
    throw input_error("--strategy {}: expected auto, pipeline, tensor or expert", s);
  }
  if (request.solver != "optimal" && request.solver != "proportional" &&
      request.solver != "proportional-v0" && request.solver != "ilp") {
    throw input_error("--solver {}: expected optimal, proportional, proportional-v0 or ilp",
                      request.solver);
  }
  if (request.solver == "ilp" && (s == "pipeline" || s == "tensor")) {
    throw input_error("--solver ilp places experts: use it with --strategy expert or auto");
  }
  if (request.context <= 0)
    throw input_error("--context must be a positive number of tokens, got {}", request.context);
  if (request.prompt < 0)
    throw input_error("--prompt must not be negative, got {}", request.prompt);
  if (s == "pipeline") return make_plan(cluster, catalog, model, pipeline_request(request), clock);
  if (!request.pins.empty() && s != "auto") throw input_error("{}", kPinReason);

  PlanInputs inputs = gather_plan_inputs(cluster, catalog, model, request);
  CollectivePaths paths(inputs, request.backend);
  auto run = [&](const std::string& strategy) {
    Outcome o{strategy, std::nullopt, ""};
    if (!request.pins.empty()) {
      o.reason = kPinReason;
      return o;
    }
    StrategyOutcome r = strategy == "tensor" ? plan_tensor(model, inputs, paths, request, clock)
                                             : plan_expert(model, inputs, paths, request, clock);
    o.plan = std::move(r.plan);
    o.reason = std::move(r.reason);
    if (o.plan) add_proportional_baseline(*o.plan, cluster, catalog, model, request, clock);
    return o;
  };
  if (s != "auto") {
    Outcome o = run(s);
    if (!o.plan) throw failure("{} parallel is not possible for {}: {}", s, model.name, o.reason);
    return std::move(*o.plan);
  }

  std::vector<Outcome> outcomes;
  outcomes.push_back(run_pipeline(cluster, catalog, model, request, clock));
  outcomes.push_back(run("tensor"));
  outcomes.push_back(run("expert"));
  const Outcome* fastest = nullptr;
  for (const auto& o : outcomes) {
    // Ties (on one host every strategy is the same plan) go to the earlier strategy.
    if (o.plan && (!fastest || o.plan->predicted.decode_tokens_per_s >
                                   fastest->plan->predicted.decode_tokens_per_s * (1 + 1e-9))) {
      fastest = &o;
    }
  }
  if (!fastest) {
    std::string why;
    for (const auto& o : outcomes)
      why += fmt::format("{}{}: {}", why.empty() ? "" : "; ", o.strategy, o.reason);
    throw failure("{} does not fit with any strategy: {}", model.name, why);
  }
  Plan plan = *fastest->plan;
  for (const auto& o : outcomes)
    if (&o != fastest) plan.alternatives.push_back(alternative(o, &plan));
  return plan;
}

}  // namespace meshplan
