#include "solvers/serving/serving_planner.hpp"

#include "lib/plan/strategy_kind.hpp"

#include "lib/plan/engines.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <exception>
#include <map>
#include <optional>

#include "lib/cluster/mlx_backend.hpp"
#include "lib/core/error.hpp"
#include "lib/core/units.hpp"
#include "solvers/problem/planning_problem.hpp"
#include "solvers/serving/replica_groups.hpp"
#include "solvers/serving/replica_kinds.hpp"
#include "solvers/strategy/strategy_planner.hpp"

namespace meshplan {
namespace {

// Routed serving beside the plan: kept when it serves more tokens/s in all, the other recorded
// as an alternative either way.
// Why `engine` cannot serve prefill on one host and decode on another as `shape` places them, or
// "" when it can.
std::string disaggregation_refusal(const std::string& engine, const ShapeInfo& shape,
                                   const Cluster& cluster, const Catalog& catalog) {
  const Engine* e = find_engine(engine);
  if (!e) return "the plan names no engine";
  std::vector<std::string> hosts = shape.prefill_hosts;
  hosts.insert(hosts.end(), shape.decode_hosts.begin(), shape.decode_hosts.end());
  if (!e->disaggregated)
    return fmt::format(
        "{} does not hand a request from a prefill host to a decode host it is "
        "told (vLLM does, with a KV connector, on NVIDIA hosts; exo does, between MLX instances "
        "it links)",
        e->title);
  if (std::string why = platform_refusal(*e, cluster, catalog, hosts); !why.empty())
    return fmt::format("{} cannot run on them ({})", e->title, why);
  return "";
}

// The fastest shape, when it is one the engine cannot run: what it would gain and why not.
void note_unlaunched_shape(Plan& plan, const Cluster& cluster, const Catalog& catalog) {
  const ShapeInfo* fastest = nullptr;
  const ShapeInfo* chosen = nullptr;
  for (const ShapeInfo& s : plan.shapes) {
    if (!fastest || s.end_to_end_s < fastest->end_to_end_s) fastest = &s;
    if (s.chosen) chosen = &s;
  }
  if (!fastest || !chosen || fastest == chosen || fastest->shape != "disaggregated") return;
  plan.notes.push_back(fmt::format(
      "prefill on {} with decode on {} would take {:.1f} s a request against {:.1f} s ({:.2f}x); "
      "it is not chosen: {}",
      fmt::join(fastest->prefill_hosts, "+"), fmt::join(fastest->decode_hosts, "+"),
      fastest->end_to_end_s, chosen->end_to_end_s, chosen->end_to_end_s / fastest->end_to_end_s,
      disaggregation_refusal(plan.engine, *fastest, cluster, catalog)));
}

// Every routed host holds the whole model: the plan is replicas with shares by flow.
bool whole_copies(const Plan& p) {
  if (!p.routing || p.routing->hosts.empty()) return false;
  for (const RoutedHostInfo& h : p.routing->hosts)
    if (h.layer_start != 0 || h.layer_end != p.num_layers) return false;
  return true;
}

// --strategy routed: whole copies run on the hosts' engine, behind a load balancer; partial
// ranges on no engine we launch.
void name_routed_engine(Plan& plan, const Cluster& cluster, const Catalog& catalog,
                        const PlanRequest& request) {
  if (request.engine == "any") {
    plan.engine_reason = "any (--engine any): the fastest layout, whatever runs it";
    return;
  }
  std::vector<std::string> hosts;
  for (const RoutedHostInfo& h : plan.routing->hosts)
    hosts.push_back(h.host);
  if (!whole_copies(plan)) {
    plan.engine_reason =
        "none: partial layer ranges need a scheduler that follows the routing table (emit "
        "routing writes it), which no engine we launch has";
    return;
  }
  if (const Engine* e = request.engine.empty()
                            ? infer_engine(cluster, catalog, hosts, plan.engine_reason)
                            : find_engine(request.engine)) {
    plan.engine = std::string(e->name);
    if (!request.engine.empty()) plan.engine_reason = "asked for";
    plan.engine_reason += "; whole copies served as replicas behind nginx";
  }
}

void consider_routed(Plan& plan, const Cluster& cluster, const Catalog& catalog,
                     const ModelDesc& model, const PlanRequest& request,
                     const RoutedRequest& routed, const Clock& clock) {
  auto hosts_of = [](const Plan& p) {
    std::vector<std::string> h;
    for (const auto& r : p.ranks)
      h.push_back(r.host);
    return h;
  };
  Alternative alt;
  const std::string routed_name(name(StrategyKind::kRouted)), none(name(MlxBackend::kNone));
  try {
    Plan r = plan_routed(cluster, catalog, model, request, routed, clock);
    const double mine = plan.serving->aggregate_tokens_per_s;
    const double theirs = r.serving->aggregate_tokens_per_s;
    // Partial layer ranges need a request scheduler that follows the routing table, which no
    // engine we launch has: such a plan is chosen only for --engine any. Whole copies are
    // replicas, launched one by one behind a load balancer.
    const bool launchable = request.engine == "any" || whole_copies(r);
    if (theirs > mine * 1.000001 && !launchable) {
      alt = {routed_name,
             true,
             0,
             theirs,
             none,
             hosts_of(r),
             fmt::format("{:.1f} tokens/s in all against {:.1f} ({:.2f}x), but its partial layer "
                         "ranges need a scheduler that follows the routing table, which {} does "
                         "not have (--engine any plans it)",
                         theirs, mine, theirs / mine,
                         plan.engine.empty() ? std::string("no engine") : plan.engine)};
    } else if (theirs > mine * 1.000001) {
      r.engine = plan.engine;
      r.engine_reason = plan.engine_reason;
      alt = {plan.strategy,
             true,
             0,
             mine,
             plan.backend,
             hosts_of(plan),
             fmt::format("{:.1f} tokens/s in all against {:.1f} routed", mine, theirs)};
      r.alternatives = plan.alternatives;
      plan = std::move(r);
    } else {
      alt = {routed_name,
             true,
             0,
             theirs,
             none,
             hosts_of(r),
             fmt::format("{:.1f} tokens/s in all against {:.1f}", theirs, mine)};
    }
  } catch (const Error& e) {
    if (e.kind() != ErrorKind::kFailed) throw;
    alt = {routed_name, false, 0, 0, none, {}, e.what()};
  }
  plan.alternatives.push_back(alt);
}

// The memory-proportional pipeline at its own best number of streams, a baseline for the
// throughput objective (not feasible, with the reason, when it fails).
BaselineInfo proportional_baseline(const Cluster& cluster, const Catalog& catalog,
                                   const ModelDesc& model, const PlanRequest& request,
                                   const Clock& clock) {
  BaselineInfo prop{"proportional-serving", false, 0, 0, 0, {}, ""};
  try {
    PlanRequest p = request;
    p.strategy = name(StrategyKind::kPipeline);
    p.solver = "proportional";
    p.pins.clear();
    Plan pp = plan_model(cluster, catalog, model, p, clock);
    apply_serving(pp, model, p);
    prop.feasible = true;
    prop.token_latency_s = 1 / pp.serving->stream_tokens_per_s;
    prop.decode_tokens_per_s = pp.serving->aggregate_tokens_per_s;
    for (const auto& r : pp.ranks)
      prop.hosts.push_back(r.host);
    prop.note = "memory-proportional pipeline, aggregate tokens/s";
  } catch (const Error& e) {
    if (e.kind() != ErrorKind::kFailed) throw;
    prop.note = e.what();
  }
  return prop;
}

// The load in words: "32 requests in flight in all", "1.5 requests a second in all".
std::string load_words(const PlanRequest& request, const ServingInfo& s) {
  if (request.rate > 0) return fmt::format("{:g} requests a second in all", request.rate);
  return fmt::format("{} request{} in flight in all", s.requests_in_flight,
                     s.requests_in_flight == 1 ? "" : "s");
}

// Replicas against one copy under the same load: the more tokens/s, or for a stated arrival
// rate (the same tokens either way) the shorter mean request.
bool serves_better(const ReplicaSet& set, const ServingInfo& one, const PlanRequest& request) {
  if (request.rate > 0) return replicas_serving(set).request_s() < one.request_s() * (1 - 1e-6);
  return set.aggregate_tokens_per_s > one.aggregate_tokens_per_s * 1.000001;
}

}  // namespace

Plan plan_serving(const Cluster& cluster, const Catalog& catalog, const ModelDesc& model,
                  const PlanRequest& request, const Clock& clock, const RoutedRequest& routed) {
  if (is_strategy(request.strategy, StrategyKind::kRouted)) {
    Plan r = plan_routed(cluster, catalog, model, request, routed, clock);
    name_routed_engine(r, cluster, catalog, request);
    return r;
  }
  Plan plan = plan_model(cluster, catalog, model, request, clock, serving_score(model, request));
  const bool throughput = serving_objective(request) == "throughput";
  // Under the throughput objective one copy over the hosts may miss the load or a target that
  // replicas meet: its failure is kept until they have been weighed.
  std::exception_ptr whole_failed;
  try {
    apply_serving(plan, model, request);
  } catch (const Error& e) {
    if (e.kind() != ErrorKind::kFailed || !throughput) throw;
    whole_failed = std::current_exception();
  }

  if (throughput) {
    // Baselines for the objective: one copy of the latency plan, and the memory-proportional
    // pipeline, each under the same load.
    BaselineInfo lat{"latency-plan", !whole_failed, 0, 0, 0, {}, ""};
    for (const auto& r : plan.ranks)
      lat.hosts.push_back(r.host);
    if (plan.serving) {
      lat.token_latency_s = 1 / plan.serving->stream_tokens_per_s;
      lat.decode_tokens_per_s = plan.serving->aggregate_tokens_per_s;
      lat.note = "one copy of the latency plan, aggregate tokens/s";
    } else {
      lat.note = "one copy over the hosts does not serve the load within the targets";
    }
    BaselineInfo prop = proportional_baseline(cluster, catalog, model, request, clock);

    // Replicas run the engine chosen for all the hosts.
    PlanRequest same_engine = request;
    if (same_engine.engine.empty() && !plan.engine.empty()) same_engine.engine = plan.engine;
    std::optional<ReplicaSet> set =
        best_replicas(cluster, catalog, model, same_engine, plan, clock);
    if (set && (whole_failed || serves_better(*set, *plan.serving, request))) {
      Plan first = set->plans.front();
      first.serving = replicas_serving(*set);
      first.replicas = set->replicas;
      first.engine = plan.engine;
      first.engine_reason = plan.engine_reason;
      if (plan.serving) {
        first.serving->bound_aggregate_tokens_per_s =
            std::max(plan.serving->bound_aggregate_tokens_per_s, set->aggregate_tokens_per_s);
        first.notes.push_back(fmt::format(
            "{} replicas serve {:.1f} tokens/s in all against {:.1f} for one copy over the "
            "hosts, {}",
            set->replicas.size(), set->aggregate_tokens_per_s, plan.serving->aggregate_tokens_per_s,
            load_words(request, *first.serving)));
      } else {
        first.notes.push_back(fmt::format(
            "{} replicas serve {:.1f} tokens/s in all, {}; one copy over the hosts does not",
            set->replicas.size(), set->aggregate_tokens_per_s,
            load_words(request, *first.serving)));
      }
      first.notes.insert(first.notes.end(), set->notes.begin(), set->notes.end());
      plan = std::move(first);
    } else if (whole_failed) {
      std::rethrow_exception(whole_failed);
    }
    for (BaselineInfo* b : {&lat, &prop}) {
      if (b->feasible && b->decode_tokens_per_s > 0)
        b->speedup = plan.serving->aggregate_tokens_per_s / b->decode_tokens_per_s;
      plan.baselines.push_back(*b);
    }
    const size_t candidates = request.hosts.empty() ? cluster.hosts.size() : request.hosts.size();
    if (is_strategy(request.strategy, StrategyKind::kAuto) && routed.consider_in_auto &&
        candidates >= 2)
      consider_routed(plan, cluster, catalog, model, request, routed, clock);
  }

  if (plan.hosts.size() >= 2) {
    plan.shapes = compare_shapes(cluster, catalog, model, request, plan, clock);
    plan.output_tokens = request.output_tokens_or_default();
    note_unlaunched_shape(plan, cluster, catalog);
  }
  return plan;
}

std::vector<ShapeInfo> compare_shapes(const Cluster& cluster, const Catalog& catalog,
                                      const ModelDesc& model, const PlanRequest& request,
                                      const Plan& whole, const Clock& clock) {
  // One topology for the whole cluster and every host planned alone.
  const TopologyContext topology(cluster, catalog);
  PlanningProblem problem(cluster, catalog, topology.graph, model, request);
  const PlanInputs& in = problem.inputs();
  const double output = static_cast<double>(request.output_tokens_or_default());
  // Each candidate alone, where the model fits: planned once per kind of host (hosts of one kind
  // get the same figures), so a fleet of one kind plans one host.
  std::vector<std::string> names;
  for (const HostFigures& h : in.hosts)
    names.push_back(h.name);
  const GroupKinds kinds(cluster, names);
  std::map<std::vector<int>, std::optional<Plan>> of_kind;
  std::vector<const Plan*> alone(in.size(), nullptr);
  std::vector<ShapeInfo> shapes;
  for (size_t i = 0; i < in.size(); ++i) {
    auto [it, added] = of_kind.try_emplace(kinds.key({i}));
    if (added) {
      PlanRequest r = request;
      r.hosts = {in.hosts[i].name};
      r.min_hosts = r.max_hosts = 0;
      r.pins.clear();
      try {
        it->second = plan_model(topology, model, r, clock);
      } catch (const Error& e) {
        if (e.kind() != ErrorKind::kFailed) throw;
      }
    }
    if (!it->second) continue;
    alone[i] = &*it->second;
    ShapeInfo s;
    s.shape = "single";
    s.prefill_hosts = s.decode_hosts = {in.hosts[i].name};
    s.ttft_s = alone[i]->predicted.ttft_s;
    s.decode_tokens_per_s = alone[i]->predicted.decode_tokens_per_s;
    s.end_to_end_s = s.ttft_s + output * alone[i]->predicted.token_latency_s;
    shapes.push_back(s);
  }
  if (whole.ranks.size() > 1) {
    ShapeInfo s;
    s.shape = whole.strategy;
    for (const auto& r : whole.ranks)
      s.prefill_hosts.push_back(r.host);
    s.decode_hosts = s.prefill_hosts;
    s.ttft_s = whole.predicted.ttft_s;
    s.decode_tokens_per_s = whole.predicted.decode_tokens_per_s;
    s.end_to_end_s = s.ttft_s + output * whole.predicted.token_latency_s;
    shapes.push_back(s);
  }
  // Prefill on p, decode on d: layer l's KV leaves p as soon as p finishes layer l, so the last
  // byte arrives after the prefill plus one layer's transfer, or after the first layer's prefill
  // plus the whole transfer, whichever is later.
  double kv = 0;
  for (const LayerInfo& l : model.layers)
    kv += l.kv_bytes(request.prompt);
  const double L = std::max(1, model.num_layers());
  for (size_t p = 0; p < in.size() && request.prompt >= kDisaggregationPrompt; ++p) {
    for (size_t d = 0; d < in.size(); ++d) {
      if (p == d || !alone[p] || !alone[d] || !in.any[p][d]) continue;
      const LinkFigures& link = *in.any[p][d];
      const double prefill = alone[p]->predicted.ttft_s;
      const double transfer = kv / link.bandwidth;
      ShapeInfo s;
      s.shape = "disaggregated";
      s.prefill_hosts = {in.hosts[p].name};
      s.decode_hosts = {in.hosts[d].name};
      s.kv_transfer_s = link.latency_s + transfer;
      s.ttft_s = std::max(prefill + transfer / L, prefill / L + transfer) + link.latency_s;
      s.decode_tokens_per_s = alone[d]->predicted.decode_tokens_per_s;
      s.end_to_end_s = s.ttft_s + output * alone[d]->predicted.token_latency_s;
      shapes.push_back(s);
    }
  }
  // Prefill and decode on two hosts is chosen only where the plan's engine runs that shape on
  // them (vLLM's KV connectors); otherwise the plan notes what it would gain.
  auto launchable = [&](const ShapeInfo& s) {
    if (s.shape != "disaggregated" || request.engine == "any") return true;
    return disaggregation_refusal(whole.engine, s, cluster, catalog).empty();
  };
  ShapeInfo* best = nullptr;
  for (ShapeInfo& s : shapes)
    if (launchable(s) && (!best || s.end_to_end_s < best->end_to_end_s)) best = &s;
  if (best) best->chosen = true;
  return shapes;
}

}  // namespace meshplan
