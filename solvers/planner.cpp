#include "solvers/planner.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "lib/error.hpp"
#include "lib/host_figures.hpp"
#include "lib/link_graph.hpp"
#include "lib/units.hpp"
#include "solvers/pipeline_cost.hpp"
#include "solvers/proportional_solver.hpp"

namespace meshplan {
namespace {

std::vector<size_t> candidate_hosts(const Cluster& cluster, const PlanRequest& request) {
  std::vector<size_t> out;
  if (request.hosts.empty()) {
    for (size_t i = 0; i < cluster.hosts.size(); ++i) out.push_back(i);
    return out;
  }
  for (const auto& name : request.hosts) {
    int i = cluster.host_index(name);
    if (i < 0) throw input_error("--hosts: unknown host \"{}\"", name);
    if (std::find(out.begin(), out.end(), static_cast<size_t>(i)) != out.end())
      throw input_error("--hosts: host \"{}\" is listed twice", name);
    out.push_back(static_cast<size_t>(i));
  }
  return out;
}

// What would make an infeasible request fit: more memory somewhere, or a shorter context.
std::string fit_advice(const PipelineCostModel& cost) {
  double need = cost.stage_memory(0, cost.num_layers(), true);
  double have = 0;
  for (size_t i = 0; i < cost.num_hosts(); ++i) have += cost.host(i).usable_bytes;
  if (need > have) {
    double weights_only = cost.stage_memory(0, cost.num_layers(), true) - cost.kv_bytes(0, cost.num_layers());
    std::string s = fmt::format("the model needs {} at context {} but the hosts have {} usable in all ({} short)",
                                format_gib(need), cost.context(), format_gib(have), format_gib(need - have));
    if (weights_only < have) {
      double kv_per_token = cost.kv_bytes(0, cost.num_layers()) / static_cast<double>(cost.context());
      int64_t fits = static_cast<int64_t>((have - weights_only) / kv_per_token);
      s += fmt::format("; a context of at most {} tokens would fit", fits);
    } else {
      s += "; add a host or use a smaller quantization";
    }
    return s;
  }
  return "";
}

}  // namespace

Plan make_plan(const Cluster& cluster, const Catalog& catalog, const ModelDesc& model, const PlanRequest& request,
               const Clock& clock) {
  if (request.context <= 0) throw input_error("--context must be a positive number of tokens, got {}", request.context);
  if (request.prompt < 0) throw input_error("--prompt must not be negative, got {}", request.prompt);
  if (request.strategy != "pipeline") {
    throw input_error("--strategy {}: this version plans pipeline placements only", request.strategy);
  }
  if (request.solver != "proportional" && request.solver != "proportional-v0") {
    throw input_error("--solver {}: unknown solver; expected proportional or proportional-v0", request.solver);
  }
  std::vector<size_t> candidates = candidate_hosts(cluster, request);
  std::vector<HostFigures> figures;
  for (size_t i : candidates) figures.push_back(host_figures(cluster.hosts[i], catalog));
  LinkGraph graph(cluster, catalog);
  Transport transport = transport_for_backend(request.backend);
  double message = catalog.activation_bytes() * model.hidden_size;
  std::vector<std::vector<std::optional<LinkFigures>>> links(candidates.size(),
                                                             std::vector<std::optional<LinkFigures>>(candidates.size()));
  for (size_t a = 0; a < candidates.size(); ++a)
    for (size_t b = 0; b < candidates.size(); ++b)
      if (a != b) links[a][b] = graph.best(candidates[a], candidates[b], transport, message);
  PipelineCostModel cost(model, figures, links, request.context, request.prompt, catalog.activation_bytes());

  double start = clock.now_seconds();
  std::vector<size_t> order(candidates.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  PipelineAssignment assignment =
      request.solver == "proportional" ? proportional_assignment(cost, order) : proportional_v0_assignment(cost, order);
  PipelineEvaluation eval = cost.evaluate(assignment);
  double solve_ms = (clock.now_seconds() - start) * 1e3;
  if (!eval.feasible) {
    std::string advice = fit_advice(cost);
    throw failure("{} does not fit with the {} split: {}{}", model.name, request.solver, eval.shortfall,
                  advice.empty() ? "" : "; " + advice);
  }
  Plan plan;
  fill_pipeline_plan(cost, assignment, eval, plan);
  plan.solver = SolverInfo{request.solver, false, solve_ms,
                           request.solver == "proportional" ? "memory-proportional split (exo 1.0)"
                                                            : "memory-weighted ring split (exo 0.0.x)"};
  BaselineInfo base;
  base.solver = "proportional";
  base.feasible = true;
  base.token_latency_s = eval.token_latency_s;
  base.decode_tokens_per_s = 1.0 / eval.token_latency_s;
  base.speedup = 1.0;
  for (size_t h : order) base.hosts.push_back(cost.host(h).name);
  plan.baselines.push_back(base);
  return plan;
}

}  // namespace meshplan
