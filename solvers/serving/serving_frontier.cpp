#include "solvers/serving/serving_frontier.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "lib/core/error.hpp"
#include "lib/plan/engines.hpp"
#include "lib/plan/strategy_kind.hpp"
#include "solvers/problem/batched_decode.hpp"
#include "solvers/serving/replica_groups.hpp"
#include "solvers/serving/serving_load.hpp"
#include "solvers/serving/serving_streams.hpp"
#include "solvers/strategy/strategy_planner.hpp"

namespace meshplan {
namespace {

// At most this many hosts get a series of their own copy (the first of each kind of host).
constexpr size_t kSingleHostSeries = 8;

std::string joined(const std::vector<std::string>& v, const char* sep) {
  std::string out;
  for (const std::string& s : v)
    out += (out.empty() ? "" : sep) + s;
  return out;
}

std::vector<std::string> hosts_of(const Plan& p) {
  std::vector<std::string> out;
  for (const RankPlan& r : p.ranks)
    if (std::find(out.begin(), out.end(), r.host) == out.end()) out.push_back(r.host);
  return out;
}

FrontierPoint frontier_point(const LoadPoint& p, int n, const LatencyTargets& targets) {
  FrontierPoint f;
  f.requests_in_flight = n;
  f.stream_tokens_per_s = p.tpot_s > 0 ? 1 / p.tpot_s : 0;
  f.aggregate_tokens_per_s = p.decode_tokens_per_s;
  f.ttft_s = p.ttft_s;
  f.meets_targets = targets.met_by(p);
  return f;
}

// One copy as planned, at every load that fits it.
FrontierSeries copy_series(const Plan& plan, const ModelDesc& model, const std::vector<int>& loads,
                           const PlanRequest& request, std::string shape) {
  BatchedDecode decode(plan, model);
  const CopyCurve curve = copy_curve(plan, decode);
  const int64_t output = request.output_tokens > 0 ? request.output_tokens : kDefaultOutputTokens;
  FrontierSeries s{std::move(shape), hosts_of(plan), {}};
  for (int n : loads)
    if (n <= curve.max_streams)
      s.points.push_back(
          frontier_point(closed_load(curve, n, output), n, latency_targets(request)));
  return s;
}

}  // namespace

std::vector<int> frontier_loads(int top, int also) {
  std::set<int> loads;
  for (int n = 1; n <= top; n *= 2)
    loads.insert(n);
  if (also >= 1) loads.insert(also);
  return {loads.begin(), loads.end()};
}

Frontier serving_frontier(const Cluster& cluster, const Catalog& catalog, const ModelDesc& model,
                          const PlanRequest& request, const Plan& chosen, const Clock& clock) {
  Frontier f;
  const int chosen_n = chosen.serving ? chosen.serving->requests_in_flight : 1;
  const std::vector<int> loads =
      frontier_loads(std::min(std::max(64, 2 * chosen_n), BatchedDecode::kMaxStreams), chosen_n);
  // Every shape is planned for the request as given, for its own engine, with no load of its own.
  PlanRequest base = request;
  base.concurrency = 0;
  base.rate = 0;
  base.ttft_target_s = base.tpot_target_s = 0;
  base.objective = "throughput";
  if (base.engine.empty()) base.engine = chosen.engine;
  const Engine* engine = find_engine(base.engine);
  std::set<std::string> seen;
  auto add = [&](FrontierSeries s) {
    if (s.points.empty() || !seen.insert(s.shape).second) return;
    f.series.push_back(std::move(s));
  };
  auto try_plan = [&](PlanRequest r) -> std::optional<Plan> {
    try {
      return plan_model(cluster, catalog, model, r, clock);
    } catch (const Error& e) {
      if (e.kind() != ErrorKind::kFailed) throw;
      return std::nullopt;
    }
  };
  // One copy over the candidates by each strategy; on hosts of several GPUs, the pipeline at
  // each tensor degree inside them.
  int most_gpus = 1;
  for (const HostInfo& h : chosen.hosts)
    most_gpus = std::max(most_gpus, h.gpus);
  for (StrategyKind kind : {StrategyKind::kPipeline, StrategyKind::kTensor, StrategyKind::kExpert,
                            StrategyKind::kHybrid}) {
    const std::string strategy(name(kind));
    std::vector<int> degrees = {0};
    if (kind == StrategyKind::kPipeline && most_gpus > 1)
      for (int d = 1; d <= most_gpus; d *= 2)
        degrees.push_back(d);
    for (int d : degrees) {
      PlanRequest r = base;
      r.strategy = strategy;
      r.tensor_degree = d;
      std::optional<Plan> p = try_plan(r);
      if (!p || p->strategy != strategy) continue;
      const std::vector<std::string> on = hosts_of(*p);
      std::string shape = on.size() == 1 ? "one copy on " + on.front()
                                         : fmt::format("{} over {}", p->strategy, joined(on, "+"));
      if (d > 0) shape += fmt::format(" (TP {} inside hosts)", d);
      add(copy_series(*p, model, loads, request, shape));
    }
  }
  // One copy on each kind of host alone.
  std::set<std::string> kinds;
  for (const HostInfo& h : chosen.hosts) {
    if (kinds.size() >= kSingleHostSeries) break;
    const std::string kind =
        fmt::format("{}/{}/{}/{}", h.usable_bytes, h.bandwidth, h.flops, h.gpus);
    if (!kinds.insert(kind).second) continue;
    if (engine && !runs_on(*engine, cluster, catalog, {h.name})) continue;
    PlanRequest r = base;
    r.hosts = {h.name};
    r.min_hosts = r.max_hosts = 0;
    r.pins.clear();
    if (std::optional<Plan> p = try_plan(r))
      add(copy_series(*p, model, loads, request, "one copy on " + h.name));
  }
  // Replicas sharing each load, the best split for it.
  if (chosen.hosts.size() >= 2) {
    FrontierSeries s{"replicas", {}, {}};
    for (int n : loads) {
      PlanRequest r = base;
      r.concurrency = n;
      std::optional<ReplicaSet> set = best_replicas(cluster, catalog, model, r, chosen, clock);
      if (!set) continue;
      const ServingInfo sv = replicas_serving(*set);
      FrontierPoint p;
      p.requests_in_flight = n;
      p.stream_tokens_per_s = sv.tpot_s > 0 ? 1 / sv.tpot_s : 0;
      p.aggregate_tokens_per_s = sv.aggregate_tokens_per_s;
      p.ttft_s = sv.ttft_s;
      LoadPoint lp;
      lp.ttft_s = sv.ttft_s;
      lp.tpot_s = sv.tpot_s;
      p.meets_targets = latency_targets(request).met_by(lp);
      s.points.push_back(p);
      for (const ReplicaInfo& rep : set->replicas)
        for (const std::string& h : rep.hosts)
          if (std::find(s.hosts.begin(), s.hosts.end(), h) == s.hosts.end()) s.hosts.push_back(h);
    }
    add(std::move(s));
  }
  // Prefill on one host, decode on another, where the plan compared that shape and the engine
  // runs it.
  for (const ShapeInfo& shape : chosen.shapes) {
    if (shape.shape != "disaggregated") continue;
    PlanRequest r = base;
    r.hosts = shape.decode_hosts;
    std::optional<Plan> p = try_plan(r);
    if (!p) continue;
    BatchedDecode decode(*p, model);
    const CopyCurve curve = copy_curve(*p, decode);
    const double prefill = shape.ttft_s - shape.kv_transfer_s;
    FrontierSeries s{fmt::format("prefill {}, decode {}", joined(shape.prefill_hosts, "+"),
                                 joined(shape.decode_hosts, "+")),
                     shape.prefill_hosts,
                     {}};
    s.hosts.insert(s.hosts.end(), shape.decode_hosts.begin(), shape.decode_hosts.end());
    const int64_t output = request.output_tokens > 0 ? request.output_tokens : kDefaultOutputTokens;
    for (int n : loads) {
      if (n > curve.max_streams) break;
      LoadPoint lp =
          disaggregated_load(curve, std::max(prefill, 0.0), shape.kv_transfer_s, n, output);
      if (lp.overloaded) break;
      s.points.push_back(frontier_point(lp, n, latency_targets(request)));
    }
    add(std::move(s));
  }
  // The plan's own point.
  if (chosen.serving) {
    const ServingInfo& sv = *chosen.serving;
    f.chosen_shape = !chosen.replicas.empty() ? "replicas"
                                              : fmt::format("{} over {}", chosen.strategy,
                                                            joined(hosts_of(chosen), "+"));
    f.chosen.requests_in_flight = sv.requests_in_flight;
    f.chosen.stream_tokens_per_s = sv.tpot_s > 0 ? 1 / sv.tpot_s : sv.stream_tokens_per_s;
    f.chosen.aggregate_tokens_per_s = sv.aggregate_tokens_per_s;
    f.chosen.ttft_s = sv.ttft_s;
  }
  return f;
}

}  // namespace meshplan
