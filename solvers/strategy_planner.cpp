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

// The pipeline planner's baselines on the plan's hosts, in rank order: the memory-proportional
// split and the best single host, with this plan's speed-up over each.
void add_baselines(Plan& plan, const Cluster& cluster, const Catalog& catalog,
                   const ModelDesc& model, const PlanRequest& request, const Clock& clock) {
  PlanRequest r = pipeline_request(request);
  r.pins.clear();
  r.hosts.clear();
  r.min_hosts = r.max_hosts = 0;
  for (const auto& rank : plan.ranks)
    r.hosts.push_back(rank.host);
  std::string why;
  // The proportional split is cheap; when it does not fit, the optimal pipeline still reports
  // both baselines (the proportional one with its reason).
  for (const char* solver : {"proportional", "optimal"}) {
    r.solver = solver;
    try {
      Plan p = make_plan(cluster, catalog, model, r, clock);
      for (BaselineInfo b : p.baselines) {
        b.speedup = b.feasible ? b.token_latency_s / plan.predicted.token_latency_s : 0;
        plan.baselines.push_back(b);
      }
      return;
    } catch (const Error& e) {
      if (e.kind() != ErrorKind::kFailed) throw;
      why = e.what();
    }
  }
  BaselineInfo b;
  b.solver = "proportional";
  b.hosts = r.hosts;
  b.note = why;
  plan.baselines.push_back(b);
}

// Every candidate host with its figures, and whether the plan uses it.
void add_hosts(Plan& plan, const PlanInputs& inputs) {
  plan.hosts.clear();
  for (const HostFigures& h : inputs.hosts) {
    bool used = std::any_of(plan.ranks.begin(), plan.ranks.end(),
                            [&](const RankPlan& r) { return r.host == h.name; });
    plan.hosts.push_back(
        HostInfo{h.name, h.usable_bytes, h.bandwidth, h.flops, h.overhead_s, h.usable_rule, used});
  }
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
    if (o.plan) {
      add_baselines(*o.plan, cluster, catalog, model, request, clock);
      add_hosts(*o.plan, inputs);
    }
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
