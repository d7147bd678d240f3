#include "solvers/serving/serving_streams.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

#include "lib/core/error.hpp"
#include "solvers/problem/batched_decode.hpp"

namespace meshplan {
namespace {

// Upper bound on the aggregate tokens/s of any plan over the candidates: every FLOP of every
// candidate spent on tokens, and every candidate's bandwidth reading only KV.
std::pair<double, std::string> aggregate_bound(const Plan& plan, const ModelDesc& model) {
  double flops_per_token = model.head_flops(), kv_per_token = 0;
  for (const LayerInfo& l : model.layers) {
    flops_per_token += l.flops;
    kv_per_token += l.kv_bytes(plan.context);
  }
  double F = 0, BW = 0;
  for (const HostInfo& h : plan.hosts) {
    F += h.flops;
    BW += h.bandwidth;
  }
  double compute = F / flops_per_token;
  double memory = kv_per_token > 0 ? BW / kv_per_token : compute;
  if (compute <= memory) return {compute, "every candidate's FLOP/s over the FLOPs of one token"};
  return {memory, "every candidate's bandwidth over one stream's KV read per token"};
}

}  // namespace

std::string serving_objective(const PlanRequest& r) {
  return r.objective.empty() ? "latency" : r.objective;
}

LatencyTargets latency_targets(const PlanRequest& r) {
  return {r.ttft_target_s, r.tpot_target_s};
}

CopyCurve copy_curve(const Plan& plan, const BatchedDecode& decode) {
  return {[&decode](int n) { return decode.at(n).round_s; }, decode.max_streams(),
          plan.predicted.ttft_s};
}

int most_in_flight(const CopyCurve& copy, const LatencyTargets& targets, int64_t output_tokens) {
  if (!targets.any()) return copy.max_streams;
  // Both means grow with the requests in flight: the largest count meeting them by bisection.
  if (!targets.met_by(closed_load(copy, 1, output_tokens))) return 0;
  int lo = 1, hi = copy.max_streams + 1;
  while (hi - lo > 1) {
    const int mid = (lo + hi) / 2;
    (targets.met_by(closed_load(copy, mid, output_tokens)) ? lo : hi) = mid;
  }
  return lo;
}

void apply_serving(Plan& plan, const ModelDesc& model, const PlanRequest& request) {
  BatchedDecode decode(plan, model);
  const CopyCurve copy = copy_curve(plan, decode);
  const LatencyTargets targets = latency_targets(request);
  const int64_t output = request.output_tokens_or_default();
  ServingInfo s;
  s.objective = serving_objective(request);
  s.load = request.rate > 0 ? "poisson" : "closed";
  s.ttft_target_s = targets.ttft_s;
  s.tpot_target_s = targets.tpot_s;
  s.max_requests_in_flight = decode.max_streams();
  s.prompt_tokens = request.prompt;
  s.output_tokens = output;
  LoadPoint at;
  if (request.rate > 0) {
    at = open_load(copy, request.rate, output);
    if (at.overloaded) {
      const LoadPoint most = closed_load(copy, decode.max_streams(), output);
      throw failure(
          "--rate {:g}: one copy on {} finishes at most {:.2f} requests a second ({} in flight, "
          "prompts of {} tokens, {} tokens out)",
          request.rate, plan.ranks.front().host, most.requests_per_s, decode.max_streams(),
          request.prompt, output);
    }
  } else {
    int n = 1;
    if (request.concurrency > 0) {
      n = request.concurrency;
      if (n > decode.max_streams())
        throw failure(
            "--concurrency {}: the KV cache of {} requests at a context of {} does not fit on "
            "{}, which holds at most {} beside its weights",
            n, n, request.context, decode.tightest_host(), decode.max_streams());
    } else if (s.objective == "throughput") {
      // The most decode tokens/s within the targets; ties go to fewer requests.
      const int most = most_in_flight(copy, targets, output);
      if (most == 0)
        throw failure("{}: even one request at a time misses it on this plan",
                      describe_miss(targets, closed_load(copy, 1, output)));
      double best = -1;
      for (int k = 1; k <= most; ++k) {
        const double a = decode.at(k).aggregate_tokens_per_s;
        if (a > best * 1.005) {
          best = a;
          n = k;
        }
      }
    }
    at = closed_load(copy, n, output);
  }
  if (!targets.met_by(at))
    throw failure("{}: {} requests in flight miss it on this plan", describe_miss(targets, at),
                  static_cast<int>(std::ceil(at.in_flight - 1e-9)));
  const int streams = std::max(1, static_cast<int>(std::ceil(at.in_flight - 1e-9)));
  BatchedStep st = decode.at(std::min(streams, decode.max_streams()));
  s.requests_in_flight = streams;
  s.requests_per_s = at.requests_per_s;
  s.ttft_s = at.ttft_s;
  s.tpot_s = at.tpot_s;
  s.output_tokens_per_s = at.output_tokens_per_s;
  s.step_s = st.round_s;
  s.stream_tokens_per_s = st.stream_tokens_per_s;
  s.aggregate_tokens_per_s = st.aggregate_tokens_per_s;
  s.kv_bytes = decode.kv_bytes(streams);
  s.bound_by = streams >= decode.max_streams() ? "memory"
               : st.compute_bound              ? "compute"
                                               : "bandwidth";
  auto [bound, method] = aggregate_bound(plan, model);
  s.bound_aggregate_tokens_per_s = std::max(bound, s.aggregate_tokens_per_s);
  s.bound_method = method;
  plan.serving = s;
}

PlanScore serving_score(const ModelDesc& model, const PlanRequest& request) {
  if (serving_objective(request) != "throughput") return {};
  return [&model, request](const Plan& p) {
    Plan q = p;
    try {
      apply_serving(q, model, request);
    } catch (const Error& e) {
      if (e.kind() != ErrorKind::kFailed) throw;
      return -1.0;
    }
    // A stated arrival rate serves the same tokens whatever the plan: the shorter request wins.
    if (request.rate > 0) return 1 / q.serving->request_s();
    return q.serving->aggregate_tokens_per_s;
  };
}

}  // namespace meshplan
