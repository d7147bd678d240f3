#include "solvers/strategy/strategy_planner.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <functional>
#include <map>
#include <optional>
#include <utility>

#include "lib/cluster/mlx_backend.hpp"
#include "lib/core/error.hpp"
#include "lib/core/units.hpp"
#include "lib/plan/engines.hpp"
#include "lib/plan/strategy_kind.hpp"
#include "solvers/problem/left_out.hpp"
#include "solvers/problem/planning_problem.hpp"
#include "solvers/strategy/backend_gate.hpp"
#include "solvers/strategy/engine_choice.hpp"
#include "solvers/strategy/own_splits.hpp"
#include "solvers/strategy/strategies.hpp"
#include "solvers/strategy/wired_limit.hpp"

namespace meshplan {
namespace {

constexpr const char* kPinReason = "--pin fixes layer ranges, which only a pipeline plan has";

// One backend over one kind of link. The MLX ring runs over Thunderbolt cables where they form
// a ring and over a shared network otherwise, so `ring` may come twice.
struct Route {
  std::string backend;    // what the plan is for: jaccl, jaccl-ring, ring, ethernet
  std::string links;      // the links it is planned over, as a backend name of PlanningProblem
  std::string transport;  // rdma, thunderbolt, network
};

Route route(const std::string& backend, const std::string& transport) {
  const std::string links =
      transport == "network" ? std::string(name(MlxBackend::kEthernet)) : backend;
  return {backend, links, transport};
}

// Auto: the backend and transport check picks for all the candidates first (equally fast plans,
// on one host, keep it, and so do their baselines), then every other in order of preference.
std::vector<Route> routes_for(const std::string& requested, const BackendVerdict* home) {
  std::vector<Route> out;
  const std::string ring(name(MlxBackend::kRing));
  if (requested == ring) return {route(ring, "thunderbolt"), route(ring, "network")};
  if (!is_backend(requested, MlxBackend::kAuto))
    return {route(requested, backend_transport(requested))};
  if (home) out.push_back(route(home->backend, home->transport));
  for (MlxBackend b : all_mlx_backends()) {
    const std::string backend(name(b));
    Route r = route(backend, backend_transport(backend));
    if (!home || r.backend != home->backend || r.transport != home->transport) out.push_back(r);
  }
  return out;
}

// `scores`: the chosen plan's and this one's objective score, when plans are compared by one.
Alternative alternative(const Outcome& o, const Plan* chosen,
                        std::optional<std::pair<double, double>> scores) {
  Alternative a;
  a.strategy = o.strategy;
  a.feasible = o.plan.has_value();
  if (o.plan) {
    a.token_latency_s = o.plan->predicted.token_latency_s;
    a.decode_tokens_per_s = tps(*o.plan);
    a.backend = o.plan->backend;
    for (const auto& r : o.plan->ranks)
      a.hosts.push_back(r.host);
    if (chosen && scores) {
      const auto [mine, theirs] = *scores;
      a.reason = theirs < 0 ? "cannot meet the request's streams"
                            : fmt::format("{:.1f} tokens/s in all against {:.1f}", theirs, mine);
    } else if (chosen) {
      const double ratio = tps(*chosen) / a.decode_tokens_per_s;
      a.reason = ratio <= 1 + 1e-9 ? fmt::format("as fast as the {} plan", chosen->strategy)
                                   : fmt::format("{:.{}f}x slower than the {} plan", ratio,
                                                 ratio < 1.01 ? 3 : 2, chosen->strategy);
    }
  } else {
    a.reason = o.reason;
  }
  return a;
}

std::string strategy_names() {
  std::string names(name(StrategyKind::kAuto));
  const auto& table = strategies();
  for (size_t i = 0; i < table.size(); ++i)
    names += fmt::format("{}{}", i + 1 == table.size() ? " or " : ", ", table[i].name);
  return names;
}

// The solvers that split a pipeline's layers (the others: optimal, the default, and ilp).
bool splits_layers(const std::string& solver) {
  return solver == "even" || solver == "proportional" || solver == "proportional-v0";
}

// Flags that only some strategies read are refused where they cannot apply, instead of being
// ignored.
void refuse_flags_that_do_not_apply(const ModelDesc& model, const PlanRequest& r,
                                    const Strategy* chosen) {
  const std::string& s = r.strategy;
  if (r.solver != "optimal" && r.solver != "even" && r.solver != "proportional" &&
      r.solver != "proportional-v0" && r.solver != "ilp") {
    throw input_error("--solver {}: expected optimal, even, proportional, proportional-v0 or ilp",
                      r.solver);
  }
  if (r.solver == "ilp" &&
      (is_strategy(s, StrategyKind::kPipeline) || is_strategy(s, StrategyKind::kTensor)))
    throw input_error("--solver ilp places experts: use it with --strategy expert or auto");
  if (r.solver == "ilp" && !model.is_moe())
    throw input_error("--solver ilp places experts, and {} has none (it is a dense model)",
                      model.name);
  if ((r.solver == "proportional" || r.solver == "proportional-v0" || r.solver == "even") &&
      (is_strategy(s, StrategyKind::kTensor) || is_strategy(s, StrategyKind::kExpert))) {
    throw input_error(
        "--solver {} splits layers over a pipeline; a {} plan sets its own shares (use "
        "--strategy pipeline, or leave --solver out)",
        r.solver, s);
  }
  if (r.allow_uneven &&
      (is_strategy(s, StrategyKind::kPipeline) || is_strategy(s, StrategyKind::kExpert)))
    throw input_error(
        "--allow-uneven sets tensor-parallel shares; it does not apply to --strategy {}", s);
  if (r.expert_load &&
      (is_strategy(s, StrategyKind::kPipeline) || is_strategy(s, StrategyKind::kTensor)))
    throw input_error("--expert-load places experts; it does not apply to --strategy {}", s);
  if (r.expert_load && !model.is_moe())
    throw input_error("--expert-load: {} is a dense model with no experts", model.name);
  if (chosen && !chosen->takes_pins && !r.pins.empty()) throw input_error("{}", kPinReason);
}

std::string first_error(const std::vector<CheckIssue>& issues) {
  if (issues.empty()) return "";
  const CheckIssue& i = issues.front();
  return i.message + (i.fix.empty() ? "" : " (fix: " + i.fix + ")");
}

// One strategy over each backend's problem: the fastest plan that check accepts.
Outcome plan_strategy(const Strategy& strategy, const std::vector<PlanningProblem>& problems,
                      const std::vector<Route>& routes, const BackendGate& gate,
                      const PlanRequest& request, const Clock& clock) {
  Outcome o{std::string(strategy.name), std::nullopt, "", {}};
  if (!strategy.takes_pins && !request.pins.empty()) {
    o.reason = kPinReason;
    return o;
  }
  for (size_t b = 0; b < routes.size(); ++b) {
    Attempt a{routes[b].backend, std::nullopt, "", {}};
    try {
      StrategyOutcome r = strategy.plan(problems[b], clock);
      a.plan = std::move(r.plan);
      a.reason = std::move(r.reason);
    } catch (const Error& e) {
      if (e.kind() != ErrorKind::kFailed) throw;
      a.reason = e.what();
    }
    if (a.plan) {
      a.invalid = gate.settle(*a.plan, routes[b].backend, routes[b].transport);
      // llama.cpp RPC's hops all go through its main host, whose links to every stage its
      // problem requires (PlanningProblem::via_main_host): its ranks need not form a ring.
      if (problems[b].head_last())
        std::erase_if(a.invalid,
                      [](const CheckIssue& i) { return i.code == "plan-order-not-ring"; });
      if (a.invalid.empty() && (!o.plan || tps(*a.plan) > tps(*o.plan) * (1 + 1e-9)))
        o.plan = a.plan;
    }
    o.attempts.push_back(std::move(a));
  }
  if (o.plan) return o;
  // Why not: a plan check rejected says most; otherwise the reason of the most capable backend.
  for (const Attempt& a : o.attempts) {
    if (a.plan) {
      std::vector<std::string> hosts;
      for (const RankPlan& r : a.plan->ranks)
        hosts.push_back(r.host);
      o.reason = fmt::format("the {} plan over {} is not valid: {}", a.backend,
                             fmt::join(hosts, ", "), first_error(a.invalid));
      return o;
    }
  }
  o.reason = o.attempts.empty() ? "" : o.attempts.back().reason;
  for (const Attempt& a : o.attempts)
    if (!a.reason.empty()) {
      o.reason = a.reason;
      break;
    }
  return o;
}

// Notes for plans that would have been faster over a backend check rejects for their hosts, and
// the hosts that could not use their RDMA cables.
void note_rejected(Plan& chosen, const std::vector<Outcome>& outcomes, const BackendGate& gate,
                   const PlanningProblem& problem) {
  for (const Outcome& o : outcomes)
    for (const Attempt& a : o.attempts) {
      if (!a.plan || a.invalid.empty() || tps(*a.plan) <= tps(chosen) * (1 + 1e-9)) continue;
      chosen.notes.push_back(
          fmt::format("{} over {} would predict {:.1f} tokens/s but is not valid for its hosts: {}",
                      o.strategy, a.backend, tps(*a.plan), first_error(a.invalid)));
    }
  std::vector<std::string> blocked;
  for (size_t k = 0; k < gate.no_rdma().size(); ++k) {
    const std::string& host = problem.host(gate.no_rdma()[k]).name;
    if (!gate.has_rdma_cable(gate.no_rdma()[k])) continue;
    const std::string reason = gate.no_rdma_reasons()[k];
    bool left_out = false;
    for (HostInfo& h : chosen.hosts)
      if (h.name == host && !h.used && chosen.transport == "rdma") {
        h.left_out = "cannot use RDMA: " + reason;
        left_out = true;
      }
    if (!left_out && chosen.transport != "rdma") blocked.push_back(reason);
  }
  rewrite_left_out_note(chosen);
  if (!blocked.empty())
    chosen.notes.push_back(fmt::format("RDMA cables are not used: {}", fmt::join(blocked, "; ")));
}

// Cables between the plan's hosts whose figures were measured (check --live --measure, calibrate)
// are used instead of the catalog's defaults for their kind, and hosts' figures measured by
// calibrate instead of their chip's; the plan says so.
void note_measured_links(Plan& plan, const Cluster& cluster) {
  auto used = [&](const std::string& host) {
    for (const HostInfo& h : plan.hosts)
      if (h.name == host) return h.used;
    return false;
  };
  std::vector<std::string> links;
  for (const Cable& c : cluster.cables) {
    if (c.measured.empty() || !used(c.a.host) || !used(c.b.host)) continue;
    std::string figures;
    if (c.latency_us) figures = fmt::format("latency {:.1f} us", *c.latency_us);
    if (c.bandwidth_gbps)
      figures += fmt::format("{}{:.1f} Gb/s", figures.empty() ? "" : ", ", *c.bandwidth_gbps);
    if (c.round_trip_us)
      figures +=
          fmt::format("{}round trip {:.1f} us", figures.empty() ? "" : ", ", *c.round_trip_us);
    links.push_back(
        fmt::format("{} - {} {} (measured {})", c.a.host, c.b.host, figures, c.measured));
  }
  if (!links.empty())
    plan.notes.push_back(fmt::format("measured link figures used instead of the catalog's: {}",
                                     fmt::join(links, "; ")));
  // Hosts the plan uses whose figures were measured on them (meshplan calibrate), as the file
  // gives them: the whole host's memory bandwidth and FLOP/s.
  std::vector<std::string> hosts;
  for (const Host& h : cluster.hosts) {
    if (h.measured.empty() || !used(h.name)) continue;
    std::vector<std::string> figures;
    if (h.mem_bandwidth) figures.push_back("memory " + format_rate(*h.mem_bandwidth, "B/s"));
    if (h.flops) figures.push_back(format_rate(*h.flops, "FLOP/s"));
    if (h.gpu_link_latency_s)
      figures.push_back(fmt::format("all-reduce {:.1f} us", *h.gpu_link_latency_s * 1e6));
    if (h.stage_overhead_s)
      figures.push_back(fmt::format("stage {:.3g} ms", *h.stage_overhead_s * 1e3));
    hosts.push_back(
        fmt::format("{} {} (measured {})", h.name, fmt::join(figures, ", "), h.measured));
  }
  if (!hosts.empty())
    plan.notes.push_back(fmt::format("measured host figures used instead of the catalog's: {}",
                                     fmt::join(hosts, "; ")));
}

// No engine: the fastest layout, which the plan says no engine runs. Throws when no strategy
// (or not the one asked for, `chosen` named `s`) has a plan.
const Outcome* fastest_layout(const std::vector<Outcome>& outcomes, const Scorer& scorer,
                              const Strategy* chosen, const std::string& s,
                              const ModelDesc& model) {
  const Outcome* fastest = best_of(pointers(outcomes), scorer);
  if (!fastest) {
    if (chosen)
      throw failure("{} parallel is not possible for {}: {}", s, model.name, outcomes[0].reason);
    std::string why;
    for (const auto& o : outcomes)
      why += fmt::format("{}{}: {}", why.empty() ? "" : "; ", o.strategy, o.reason);
    throw failure("{} does not fit with any strategy: {}", model.name, why);
  }
  return fastest;
}

// The layouts considered and not chosen, with the scores compared when a score chose, and why
// the chosen engine would not run them.
void add_alternatives(Plan& plan, const EngineChoice& pick, const PlanScore& score,
                      const Scorer& scorer) {
  for (const Outcome* o : pick.considered) {
    if (o == pick.outcome) continue;
    std::optional<std::pair<double, double>> compared;
    if (score && pick.considered.size() > 1)
      compared = std::make_pair(scorer.of(*pick.outcome), scorer.of(*o));
    Alternative a = alternative(*o, &plan, compared);
    if (pick.engine && o->plan) {
      const std::string refusal = layout_refusal(*pick.engine, *o->plan);
      if (!refusal.empty())
        a.reason += fmt::format("; {} does not run it ({})", pick.engine->title, refusal);
    }
    plan.alternatives.push_back(a);
  }
}

}  // namespace

Plan plan_model(const Cluster& cluster, const Catalog& catalog, const ModelDesc& model,
                const PlanRequest& request, const Clock& clock, const PlanScore& score) {
  // Built once: every strategy, backend and baseline plans over these figures.
  const TopologyContext topology(cluster, catalog);
  return plan_model(topology, model, request, clock, score);
}

Plan plan_model(const TopologyContext& topology, const ModelDesc& model, const PlanRequest& request,
                const Clock& clock, const PlanScore& score) {
  const Cluster& cluster = topology.cluster;
  const Catalog& catalog = topology.catalog;
  std::string s = request.strategy;
  const Strategy* chosen = find_strategy(s);
  if (!is_strategy(s, StrategyKind::kAuto) && !chosen)
    throw input_error("--strategy {}: expected {}", s, strategy_names());
  refuse_flags_that_do_not_apply(model, request, chosen);
  // A pipeline solver asked for is the pipeline strategy with that solver: auto must not trade it
  // for a tensor or expert plan that ignores the solver.
  if (!chosen && splits_layers(request.solver)) {
    chosen = &meshplan::strategy(StrategyKind::kPipeline);
    s = std::string(chosen->name);
  }

  PlanningProblem problem(cluster, catalog, topology.graph, model, request);
  BackendGate gate(topology, problem);
  CheckReport home;
  if (request.backend == "auto") {
    CheckOptions all;
    all.hosts = request.hosts;
    home = check_cluster(topology, all);
  }
  std::vector<Route> routes = routes_for(request.backend, home.find(home.chosen));
  std::vector<PlanningProblem> problems;
  for (const Route& r : routes)
    problems.push_back(problem.for_backend(r.links, gate.no_rdma()));

  std::vector<Outcome> outcomes;
  for (const Strategy& strategy : strategies())
    if (!chosen || chosen == &strategy)
      outcomes.push_back(plan_strategy(strategy, problems, routes, gate, request, clock));

  Scorer scorer{score, {}};
  OwnSplits own_splits(catalog, request, problems, outcomes, scorer,
                       [&](const std::vector<PlanningProblem>& split) {
                         return plan_strategy(meshplan::strategy(StrategyKind::kPipeline), split,
                                              routes, gate, request, clock);
                       });
  const OwnSplit own_split = [&](const Engine& e) { return own_splits.of(e); };

  EngineChoice pick =
      choose_engine(cluster, catalog, request, problem, outcomes, own_split, scorer);
  if (!pick.outcome) pick.outcome = fastest_layout(outcomes, scorer, chosen, s, model);
  Plan plan = *pick.outcome->plan;
  plan.engine = pick.engine ? std::string(pick.engine->name) : "";
  plan.engine_reason = pick.reason;
  add_alternatives(plan, pick, score, scorer);
  note_faster_elsewhere(plan, pick, outcomes, own_split, scorer, cluster, catalog);
  note_rejected(plan, outcomes, gate, problem);
  note_measured_links(plan, cluster);
  mark_wired_limits(plan, problem);
  return plan;
}

}  // namespace meshplan
