#include "solvers/serving/serving_streams.hpp"

#include <algorithm>
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

void apply_serving(Plan& plan, const ModelDesc& model, const PlanRequest& request) {
  BatchedDecode decode(plan, model);
  ServingInfo s;
  s.objective = serving_objective(request);
  s.min_stream_tps = request.min_stream_tps;
  s.max_concurrency = decode.max_streams();
  int n = 1;
  if (request.concurrency > 0) {
    n = request.concurrency;
    if (n > decode.max_streams())
      throw failure(
          "--concurrency {}: the KV cache of {} streams at a context of {} does not fit on {}, "
          "which holds at most {} beside its weights",
          n, n, request.context, decode.tightest_host(), decode.max_streams());
    if (decode.at(n).stream_tokens_per_s + 1e-12 < request.min_stream_tps)
      throw failure("--min-stream-tps {}: {} streams get {:.1f} tokens/s each",
                    request.min_stream_tps, n, decode.at(n).stream_tokens_per_s);
  } else if (s.objective == "throughput") {
    // The best aggregate whose streams all get the minimum; ties go to fewer streams.
    double best = -1;
    for (int k = 1; k <= decode.max_streams(); ++k) {
      BatchedStep st = decode.at(k);
      if (st.stream_tokens_per_s + 1e-12 < request.min_stream_tps) break;
      if (st.aggregate_tokens_per_s > best * 1.005) {
        best = st.aggregate_tokens_per_s;
        n = k;
      }
    }
    if (best < 0)
      throw failure("--min-stream-tps {}: even one stream gets only {:.1f} tokens/s on this plan",
                    request.min_stream_tps, decode.at(1).stream_tokens_per_s);
  } else if (decode.at(1).stream_tokens_per_s + 1e-12 < request.min_stream_tps) {
    throw failure("--min-stream-tps {}: one stream gets only {:.1f} tokens/s on this plan",
                  request.min_stream_tps, decode.at(1).stream_tokens_per_s);
  }
  BatchedStep st = decode.at(n);
  s.concurrency = n;
  s.step_s = st.round_s;
  s.stream_tokens_per_s = st.stream_tokens_per_s;
  s.aggregate_tokens_per_s = st.aggregate_tokens_per_s;
  s.kv_bytes = decode.kv_bytes(n);
  s.bound_by = n >= decode.max_streams() ? "memory" : st.compute_bound ? "compute" : "bandwidth";
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
    return q.serving->aggregate_tokens_per_s;
  };
}

}  // namespace meshplan
