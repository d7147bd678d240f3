#include "solvers/serving/serving_frontier.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

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
  const int64_t output = request.output_tokens_or_default();
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

namespace {

// A plan's shape as the frontier names it: "one copy on a", or "tensor over a+b".
std::string shape_of(const Plan& p) {
  const std::vector<std::string> on = hosts_of(p);
  return on.size() == 1 ? "one copy on " + on.front()
                        : fmt::format("{} over {}", p.strategy, fmt::join(on, "+"));
}

// The series of one frontier, shape by shape; a shape already listed is not listed twice.
class FrontierBuilder {
 public:
  FrontierBuilder(const Cluster& cluster, const Catalog& catalog, const ModelDesc& model,
                  const PlanRequest& request, const Plan& chosen, const Clock& clock)
      : cluster_(cluster),
        catalog_(catalog),
        model_(model),
        request_(request),
        chosen_(chosen),
        clock_(clock) {
    const int n = chosen.serving ? chosen.serving->requests_in_flight : 1;
    loads_ = frontier_loads(std::min(std::max(64, 2 * n), BatchedDecode::kMaxStreams), n);
    // Every shape is planned for the request as given, for the plan's engine, with no load.
    base_ = request;
    base_.concurrency = 0;
    base_.rate = 0;
    base_.ttft_target_s = base_.tpot_target_s = 0;
    base_.objective = "throughput";
    if (base_.engine.empty()) base_.engine = chosen.engine;
  }

  // One copy over the candidates by each strategy; on hosts of several GPUs, the pipeline at
  // each tensor degree inside them.
  void copies() {
    int most_gpus = 1;
    for (const HostInfo& h : chosen_.hosts)
      most_gpus = std::max(most_gpus, h.gpus);
    for (StrategyKind kind : {StrategyKind::kPipeline, StrategyKind::kTensor, StrategyKind::kExpert,
                              StrategyKind::kHybrid}) {
      std::vector<int> degrees = {0};
      if (kind == StrategyKind::kPipeline && most_gpus > 1)
        for (int d = 1; d <= most_gpus; d *= 2)
          degrees.push_back(d);
      for (int d : degrees) {
        PlanRequest r = base_;
        r.strategy = name(kind);
        r.tensor_degree = d;
        std::optional<Plan> p = try_plan(r);
        if (!p || p->strategy != r.strategy) continue;
        const std::string shape =
            shape_of(*p) + (d > 0 ? fmt::format(" (TP {} inside hosts)", d) : "");
        add(copy_series(*p, model_, loads_, request_, shape));
      }
    }
  }

  // One copy on each kind of host alone (the first kSingleHostSeries kinds).
  void single_hosts() {
    const Engine* engine = find_engine(base_.engine);
    std::set<std::string> kinds;
    for (const HostInfo& h : chosen_.hosts) {
      if (kinds.size() >= kSingleHostSeries) break;
      if (!kinds.insert(fmt::format("{}/{}/{}/{}", h.usable_bytes, h.bandwidth, h.flops, h.gpus))
               .second)
        continue;
      if (engine && !runs_on(*engine, cluster_, catalog_, {h.name})) continue;
      PlanRequest r = base_;
      r.hosts = {h.name};
      r.min_hosts = r.max_hosts = 0;
      r.pins.clear();
      if (std::optional<Plan> p = try_plan(r))
        add(copy_series(*p, model_, loads_, request_, "one copy on " + h.name));
    }
  }

  // Replicas sharing each load, the best split for it.
  void replicas() {
    if (chosen_.hosts.size() < 2) return;
    FrontierSeries s{"replicas", {}, {}};
    for (int n : loads_) {
      PlanRequest r = base_;
      r.concurrency = n;
      std::optional<ReplicaSet> set = best_replicas(cluster_, catalog_, model_, r, chosen_, clock_);
      if (!set) continue;
      const ServingInfo sv = replicas_serving(*set);
      LoadPoint lp;
      lp.ttft_s = sv.ttft_s;
      lp.tpot_s = sv.tpot_s;
      lp.decode_tokens_per_s = sv.aggregate_tokens_per_s;
      s.points.push_back(frontier_point(lp, n, latency_targets(request_)));
      for (const ReplicaInfo& rep : set->replicas)
        for (const std::string& h : rep.hosts)
          if (std::find(s.hosts.begin(), s.hosts.end(), h) == s.hosts.end()) s.hosts.push_back(h);
    }
    add(std::move(s));
  }

  // Prefill on one host, decode on another, where the plan compared that shape.
  void pairs() {
    const int64_t output = request_.output_tokens_or_default();
    for (const ShapeInfo& shape : chosen_.shapes) {
      if (shape.shape != "disaggregated") continue;
      PlanRequest r = base_;
      r.hosts = shape.decode_hosts;
      std::optional<Plan> p = try_plan(r);
      if (!p) continue;
      BatchedDecode decode(*p, model_);
      const CopyCurve curve = copy_curve(*p, decode);
      const double prefill = std::max(shape.ttft_s - shape.kv_transfer_s, 0.0);
      FrontierSeries s{fmt::format("prefill {}, decode {}", fmt::join(shape.prefill_hosts, "+"),
                                   fmt::join(shape.decode_hosts, "+")),
                       shape.prefill_hosts,
                       {}};
      s.hosts.insert(s.hosts.end(), shape.decode_hosts.begin(), shape.decode_hosts.end());
      for (int n : loads_) {
        if (n > curve.max_streams) break;
        LoadPoint lp = disaggregated_load(curve, prefill, shape.kv_transfer_s, n, output);
        if (lp.overloaded) break;
        s.points.push_back(frontier_point(lp, n, latency_targets(request_)));
      }
      add(std::move(s));
    }
  }

  // The frontier, with the plan's own point.
  Frontier done() {
    if (chosen_.serving) {
      const ServingInfo& sv = *chosen_.serving;
      f_.chosen_shape = !chosen_.replicas.empty() ? "replicas" : shape_of(chosen_);
      f_.chosen.requests_in_flight = sv.requests_in_flight;
      f_.chosen.stream_tokens_per_s = sv.tpot_s > 0 ? 1 / sv.tpot_s : sv.stream_tokens_per_s;
      f_.chosen.aggregate_tokens_per_s = sv.aggregate_tokens_per_s;
      f_.chosen.ttft_s = sv.ttft_s;
    }
    return std::move(f_);
  }

 private:
  void add(FrontierSeries s) {
    if (s.points.empty() || !seen_.insert(s.shape).second) return;
    f_.series.push_back(std::move(s));
  }
  std::optional<Plan> try_plan(const PlanRequest& r) const {
    try {
      return plan_model(cluster_, catalog_, model_, r, clock_);
    } catch (const Error& e) {
      if (e.kind() != ErrorKind::kFailed) throw;
      return std::nullopt;
    }
  }

  const Cluster& cluster_;
  const Catalog& catalog_;
  const ModelDesc& model_;
  const PlanRequest& request_;
  const Plan& chosen_;
  const Clock& clock_;
  PlanRequest base_;
  std::vector<int> loads_;
  std::set<std::string> seen_;
  Frontier f_;
};

}  // namespace

Frontier serving_frontier(const Cluster& cluster, const Catalog& catalog, const ModelDesc& model,
                          const PlanRequest& request, const Plan& chosen, const Clock& clock) {
  FrontierBuilder b(cluster, catalog, model, request, chosen, clock);
  b.copies();
  b.single_hosts();
  b.replicas();
  b.pairs();
  return b.done();
}

}  // namespace meshplan
