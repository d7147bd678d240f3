#include "solvers/pipeline/pipeline_plan.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <numeric>

#include "lib/cluster/host_figures.hpp"
#include "lib/cluster/link_graph.hpp"
#include "lib/core/error.hpp"
#include "lib/core/units.hpp"
#include "solvers/pipeline/baselines.hpp"
#include "solvers/pipeline/even_split.hpp"
#include "solvers/pipeline/faster_pipeline_hosts.hpp"
#include "solvers/pipeline/optimal_pipeline.hpp"
#include "solvers/pipeline/pipeline_balance.hpp"
#include "solvers/pipeline/pipeline_fill.hpp"
#include "solvers/pipeline/proportional_solver.hpp"
#include "solvers/pipeline/tensor_degrees.hpp"
#include "solvers/problem/candidate_classes.hpp"
#include "solvers/problem/left_out.hpp"
#include "solvers/problem/lower_bound.hpp"
#include "solvers/problem/pipeline_cost.hpp"
#include "solvers/problem/planning_problem.hpp"

namespace meshplan {
namespace {

// What would make an infeasible request fit: more memory somewhere, or a shorter context.
std::string fit_advice(const PipelineCostModel& cost) {
  double need = cost.stage_memory(0, cost.num_layers(), true);
  double have = 0;
  for (size_t i = 0; i < cost.num_hosts(); ++i)
    have += cost.host(i).usable_bytes;
  if (need > have) {
    double weights_only =
        cost.stage_memory(0, cost.num_layers(), true) - cost.kv_bytes(0, cost.num_layers());
    std::vector<std::string> names;
    for (size_t i = 0; i < cost.num_hosts() && i < 8; ++i)
      names.push_back(cost.host(i).name);
    if (cost.num_hosts() > 8) names.push_back(fmt::format("{} more", cost.num_hosts() - 8));
    std::string s = fmt::format(
        "the model needs {} at context {} but the hosts ({}) have {} usable in all ({} short)",
        format_gib(need), cost.context(), fmt::join(names, ", "), format_gib(have),
        format_gib(need - have));
    if (weights_only < have) {
      double kv_per_token =
          cost.kv_bytes(0, cost.num_layers()) / static_cast<double>(cost.context());
      int64_t fits = static_cast<int64_t>((have - weights_only) / kv_per_token);
      s += fmt::format("; a context of at most {} tokens would fit", fits);
    } else {
      s += "; add a host or use a smaller quantization";
    }
    return s;
  }
  return "";
}

// Why no pipeline fits, and what would fix it.
std::string explain_infeasible(const PipelineCostModel& cost, const PipelineConstraints& c,
                               const std::string& backend) {
  std::string advice = fit_advice(cost);
  if (!advice.empty()) return advice;
  const int L = cost.num_layers();
  for (const RangePin& p : c.pins) {
    const HostFigures& h = cost.host(p.host);
    const bool head = cost.head_last() ? p.end == L : p.start == 0;
    double need = cost.stage_memory(p.start, p.end, head);
    if (need > h.usable_bytes)
      return fmt::format(
          "{} needs {} for its pinned layers {}-{}{} but has {} usable ({} short); pin fewer "
          "layers",
          h.name, format_gib(need), p.start, p.end - 1, head ? " and the embedding/LM head" : "",
          format_gib(h.usable_bytes), format_gib(need - h.usable_bytes));
  }
  std::vector<double> caps;
  double largest = 0;
  for (size_t i = 0; i < cost.num_hosts(); ++i) {
    caps.push_back(cost.host(i).usable_bytes);
    largest = std::max(largest, cost.host(i).usable_bytes);
  }
  const int head_layer = cost.head_last() ? L - 1 : 0;
  double head_need = cost.stage_memory(head_layer, head_layer + 1, true);
  if (head_need > largest)
    return fmt::format(
        "{} needs {} for the embedding, LM head and layer {}, but the largest host has {} ({} "
        "short)",
        cost.head_last() ? "the last rank" : "rank 0", format_gib(head_need), head_layer,
        format_gib(largest), format_gib(head_need - largest));
  for (int l = 0; l < cost.num_layers(); ++l) {
    double need = cost.stage_memory(l, l + 1, false);
    if (need > largest)
      return fmt::format(
          "layer {} alone needs {} at context {}, the largest host has {} ({} short); use a "
          "shorter context",
          l, format_gib(need), cost.context(), format_gib(largest), format_gib(need - largest));
  }
  std::sort(caps.rbegin(), caps.rend());
  double need = cost.stage_memory(0, cost.num_layers(), true), have = 0;
  size_t m = 0;
  while (m < caps.size() && have < need)
    have += caps[m++];
  if (c.max_hosts > 0 && static_cast<size_t>(c.max_hosts) < m)
    return fmt::format(
        "{} hosts hold at most {} but the model needs {} at context {}; allow --max-hosts {} or "
        "more",
        c.max_hosts, format_gib(std::accumulate(caps.begin(), caps.begin() + c.max_hosts, 0.0)),
        format_gib(need), cost.context(), m);
  if (m >= 2) {
    std::vector<std::string> isolated;
    const std::vector<double> least = cost.least_hops(false);
    for (size_t a = 0; a < cost.num_hosts(); ++a)
      if (!(least[a] < kInfinity)) isolated.push_back(cost.host(a).name);
    std::string who = isolated.empty() ? ""
                                       : fmt::format(" ({} {} no usable link to any other host)",
                                                     fmt::join(isolated, ", "),
                                                     isolated.size() == 1 ? "has" : "have");
    return fmt::format(
        "the model needs at least {} hosts, and no ring of hosts joined by usable links for "
        "backend {} holds "
        "it{}; add cables or a network between the hosts, or use --backend auto",
        m, backend, who);
  }
  return "no placement satisfies the constraints (--pin, --min-hosts, --max-hosts)";
}

// The pipeline solver the request names, checked against the options it takes.
std::string pipeline_solver(const PlanRequest& request) {
  // ilp places experts; a pipeline asked for alongside it (--strategy auto) is the optimal one.
  const std::string solver = request.solver == "ilp" ? "optimal" : request.solver;
  const bool optimal = solver == "optimal";
  const bool even = solver == "even";
  if (!optimal && !even && solver != "proportional" && solver != "proportional-v0") {
    throw input_error(
        "--solver {}: unknown solver; expected optimal, even, proportional or proportional-v0",
        solver);
  }
  if (!optimal && !request.pins.empty())
    throw input_error("--pin needs --solver optimal (the {} split sets every range itself)",
                      solver);
  if (!optimal && !even && (request.min_hosts > 0 || request.max_hosts > 0))
    throw input_error(
        "--min-hosts and --max-hosts need --solver optimal or even (the {} split uses every host)",
        solver);
  return solver;
}

// The lower bound on any pipeline over the hosts, beside the plan's predicted token time.
BoundInfo pipeline_bound(const PipelineCostModel& cost, const PlanRequest& request,
                         const PipelineEvaluation& eval) {
  PipelineBound bound = pipeline_lower_bound(cost, request.min_hosts);
  if (bound.token_latency_s > eval.token_latency_s * (1 + 1e-9))
    throw internal_error("lower bound {} s above the plan's {} s", bound.token_latency_s,
                         eval.token_latency_s);
  BoundInfo b;
  b.token_latency_s = std::min(bound.token_latency_s, eval.token_latency_s);  // rounding only
  b.gap_percent = gap_percent(eval.token_latency_s, b.token_latency_s);
  b.method = bound.method;
  return b;
}

// What the solver did, with how close its plan is to the bound.
SolverInfo solver_info(const std::string& solver, const SearchResult& search,
                       const EvenSplitResult& equal, const PipelineAssignment& assignment,
                       double bound_gap_percent, double solve_ms) {
  const bool optimal = solver == "optimal";
  const bool even = solver == "even";
  if (optimal) {
    bool proven = search.exact || bound_gap_percent == 0;
    std::string note = search.method;
    if (!search.exact)
      note += fmt::format("; within {:.2f} % of the lower bound", bound_gap_percent);
    return SolverInfo{"optimal", proven, solve_ms, note};
  }
  if (even) {
    return SolverInfo{
        "even", equal.exhaustive, solve_ms,
        fmt::format("mlx-lm's equal split ({} layers a rank, rank 0 of mlx.launch the last), "
                    "over the best {} and order{}",
                    assignment.cuts[1], assignment.order.size() == 1 ? "host" : "hosts",
                    equal.exhaustive ? "" : " among the fastest")};
  }
  return SolverInfo{solver, false, solve_ms,
                    solver == "proportional" ? "memory-proportional split (exo 1.0)"
                                             : "memory-weighted ring split (exo 0.0.x)"};
}

std::vector<size_t> all_hosts(const PlanningProblem& problem) {
  std::vector<size_t> all(problem.size());
  std::iota(all.begin(), all.end(), size_t{0});
  return all;
}

// The most hosts a pipeline has: a layer a rank at least, and --max-hosts.
size_t needed_cap(const PlanningProblem& problem, const PipelineConstraints& constraints) {
  size_t cap = static_cast<size_t>(problem.model().num_layers());
  if (constraints.max_hosts > 0) cap = std::min(cap, static_cast<size_t>(constraints.max_hosts));
  return cap;
}

// Runs `search(cost, constraints)` over the hosts a pipeline needs and maps its assignment back
// to the problem's hosts. A pipeline holds at least a layer a rank, so it uses at most as many
// hosts as layers (or --max-hosts): of a class of interchangeable hosts, the first that many are
// all a search needs, and a fleet of one kind is searched over them alone. `among`, when given,
// are the only hosts the search may need (in order).
template <typename Search>
auto over_needed_hosts(const PlanningProblem& problem, const PipelineConstraints& constraints,
                       Search&& search, size_t* searched = nullptr,
                       const std::vector<size_t>* among = nullptr) {
  const size_t cap = needed_cap(problem, constraints);
  const std::vector<size_t> kept =
      among ? at_most_per_class(problem, cap, *among) : at_most_per_class(problem, cap);
  if (searched) *searched = kept.size();
  if (kept.size() == problem.size()) return search(problem.pipeline_cost(), constraints);
  // Pinned hosts and the head's host are classes of their own, so they are kept.
  std::vector<size_t> index(problem.size(), SIZE_MAX);
  for (size_t k = 0; k < kept.size(); ++k)
    index[kept[k]] = k;
  PipelineConstraints sub_constraints = constraints;
  for (RangePin& pin : sub_constraints.pins)
    pin.host = index.at(pin.host);
  if (constraints.head_host) sub_constraints.head_host = index.at(*constraints.head_host);
  const PlanningProblem sub = problem.subset(kept, problem.request().solver);
  auto result = search(sub.pipeline_cost(), sub_constraints);
  for (size_t& h : result.assignment.order)
    h = kept[h];
  return result;
}

// The hosts an optimal search on a fleet needs. On a fleet (more candidates than a pipeline has
// ranks) without pins, a fixed head host or a least host count, a pipeline found without a search
// is one the search may return, so only hosts that could beat it are searched.
struct SearchedHosts {
  std::vector<size_t> among;           // in order
  std::optional<KnownPipeline> known;  // set when it left hosts out
  std::string why;                     // for the solver's note, ending in ", and " when set
};

SearchedHosts leave_out_slow_hosts(const PlanningProblem& problem,
                                   const PipelineConstraints& constraints) {
  SearchedHosts out{all_hosts(problem), std::nullopt, ""};
  if (problem.size() <= needed_cap(problem, constraints) || !constraints.pins.empty() ||
      constraints.head_host || constraints.min_hosts > 1)
    return out;
  const PipelineCostModel& cost = problem.pipeline_cost();
  // A pipeline of more ranks than --max-hosts allows is none the search may return.
  std::optional<KnownPipeline> known = fast_known_pipeline(cost, needed_cap(problem, constraints));
  if (!known) return out;
  std::vector<size_t> among = hosts_a_faster_pipeline_may_use(cost, known->latency_s);
  if (among.size() == problem.size()) return out;
  const std::vector<size_t>& order = known->assignment.order;
  out.why =
      fmt::format("none that holding even one layer could beat {}{} ({:.2f} ms per token), and ",
                  cost.host(order.front()).name,
                  order.size() == 1 ? " alone" : fmt::format(" and {} more", order.size() - 1),
                  known->latency_s * 1e3);
  out.among = std::move(among);
  out.known = std::move(known);
  return out;
}

// One pipeline over the problem's hosts as their figures stand (tensor degrees fixed).
StrategyOutcome plan_pipeline_at(const PlanningProblem& problem, const Clock& clock) {
  const PlanRequest& request = problem.request();
  const ModelDesc& model = problem.model();
  const std::string solver = pipeline_solver(request);
  const bool optimal = solver == "optimal";
  const bool even = solver == "even";
  const PipelineCostModel& cost = problem.pipeline_cost();
  PipelineConstraints constraints;
  constraints.min_hosts = request.min_hosts;
  constraints.max_hosts = request.max_hosts;
  constraints.pins = problem.pins();
  constraints.head_host = problem.head_host();

  std::vector<size_t> order(problem.size());
  for (size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  double start = clock.now_seconds();
  PipelineAssignment assignment;
  SearchResult search;
  EvenSplitResult equal;
  if (even) {
    equal = over_needed_hosts(problem, constraints, best_even_split);
    if (!equal.feasible) throw failure("{} does not fit: {}", model.name, equal.why);
    assignment = equal.assignment;
  } else if (optimal) {
    size_t searched = problem.size();
    const SearchedHosts hosts = leave_out_slow_hosts(problem, constraints);
    auto optimal_search = [](const PipelineCostModel& c, const PipelineConstraints& k) {
      std::vector<size_t> all(c.num_hosts());
      std::iota(all.begin(), all.end(), size_t{0});
      SearchSpace space(c, k);
      return solve_optimal_pipeline(space, all);
    };
    search = over_needed_hosts(problem, constraints, optimal_search, &searched, &hosts.among);
    // A heuristic search may end above the pipeline that let it leave hosts out.
    if (hosts.known && (!search.feasible || hosts.known->latency_s < search.latency_s)) {
      search.feasible = true;
      search.assignment = hosts.known->assignment;
      search.latency_s = hosts.known->latency_s;
    }
    if (searched < problem.size())
      search.method +=
          fmt::format("; over {} of the {} hosts: {}no more of each kind than a pipeline has ranks",
                      searched, problem.size(), hosts.why);
    if (!search.feasible) {
      throw failure("{} does not fit: {}", model.name,
                    explain_infeasible(cost, constraints, request.backend));
    }
    assignment = search.assignment;
    if (constraints.pins.empty()) assignment = balance_memory(cost, assignment);
  } else {
    assignment = solver == "proportional" ? proportional_assignment(cost, order)
                                          : proportional_v0_assignment(cost, order);
  }
  double solve_ms = (clock.now_seconds() - start) * 1e3;
  PipelineEvaluation eval = cost.evaluate(assignment);
  if (!eval.feasible) {
    if (optimal)
      throw internal_error("the optimal solver returned an infeasible plan: {}", eval.shortfall);
    std::string advice = fit_advice(cost);
    throw failure("{} does not fit with the {} split: {}{}", model.name, solver, eval.shortfall,
                  advice.empty() ? "" : "; " + advice);
  }
  Plan plan;
  fill_pipeline_plan(cost, assignment, eval, plan);
  if (even)  // mlx-lm loads the embedding and the LM head on every rank
    for (size_t j = 0; j < plan.ranks.size(); ++j) {
      if (plan.ranks[j].holds_head) continue;
      plan.ranks[j].weight_bytes += cost.head_memory();
      plan.ranks[j].total_bytes += cost.head_memory();
    }

  plan.bound = pipeline_bound(cost, request, eval);
  plan.solver = solver_info(solver, search, equal, assignment, plan.bound->gap_percent, solve_ms);
  BaselineResult prop = proportional_baseline(cost, order);
  set_speedup(prop.info, eval.token_latency_s);
  plan.baselines.push_back(prop.info);
  BaselineResult single = single_host_baseline(cost);
  set_speedup(single.info, eval.token_latency_s);
  plan.baselines.push_back(single.info);

  std::string constrained;
  if (request.max_hosts > 0) constrained = "--max-hosts";
  if (!request.pins.empty()) constrained += constrained.empty() ? "the pins" : " and the pins";
  record_left_out(plan, problem, constrained);
  StrategyOutcome out;
  out.plan = std::move(plan);
  return out;
}

}  // namespace

StrategyOutcome plan_pipeline(const PlanningProblem& problem, const Clock& clock) {
  return choose_tensor_degrees(problem, clock, plan_pipeline_at);
}

std::vector<BaselineInfo> pipeline_baselines(const PlanningProblem& problem,
                                             const std::vector<size_t>& members,
                                             double plan_latency_s) {
  PlanningProblem sub = problem.subset(members, "proportional");
  const PipelineCostModel& cost = sub.pipeline_cost();
  std::vector<size_t> order(members.size());
  for (size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  BaselineResult prop = proportional_baseline(cost, order);
  if (!prop.info.feasible) {
    // Without a proportional split, say why no pipeline on these hosts fits at all, if none does.
    PipelineConstraints any;
    any.head_host = sub.head_host();
    SearchSpace space(cost, any);
    if (!solve_optimal_pipeline(space, order).feasible) {
      BaselineInfo b;
      b.solver = "proportional";
      b.hosts = sub.request().hosts;
      b.note = fmt::format("{} does not fit: {}", sub.model().name,
                           explain_infeasible(cost, any, sub.request().backend));
      return {b};
    }
  }
  BaselineResult single = single_host_baseline(cost);
  set_speedup(prop.info, plan_latency_s);
  set_speedup(single.info, plan_latency_s);
  return {prop.info, single.info};
}

Plan make_plan(const Cluster& cluster, const Catalog& catalog, const ModelDesc& model,
               const PlanRequest& request, const Clock& clock) {
  PlanningProblem problem(cluster, catalog, model, request);
  return std::move(*plan_pipeline(problem, clock).plan);
}

}  // namespace meshplan
