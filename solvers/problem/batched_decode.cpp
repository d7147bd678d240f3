#include "solvers/problem/batched_decode.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "lib/models/step_reads.hpp"
#include "lib/plan/strategy_kind.hpp"

namespace meshplan {
namespace {

// A hybrid plan's group of hosts is one stage: equal shares, so its slowest host stands for it
// (and carries the group's hop to the next stage).
bool stands_for_group(const Plan& plan, const RankPlan& r) {
  if (r.tp_group.empty()) return true;
  const RankPlan* slowest = nullptr;
  for (const RankPlan& o : plan.ranks)
    if (o.tp_group == r.tp_group && (!slowest || o.bandwidth < slowest->bandwidth)) slowest = &o;
  return slowest == &r;
}

const std::optional<HopInfo>& group_hop(const Plan& plan, const RankPlan& r) {
  for (const RankPlan& o : plan.ranks)
    if (o.tp_group == r.tp_group && o.hop_to_next) return o.hop_to_next;
  return r.hop_to_next;
}

// The part of every layer this rank computes: a tensor share, an expert rank's part of the
// weights, or all of its layer range.
double rank_part(const RankPlan& r, double total_weight) {
  double part = 1;
  if (r.share)
    part = *r.share;
  else if (!r.experts.empty() && total_weight > 0)
    part = r.weight_bytes / total_weight;
  return part;
}

// The streams whose KV fits in what the rank's weights leave free, 1 to kMaxStreams.
int kv_streams_that_fit(const RankPlan& r) {
  double free = r.usable_bytes - (r.total_bytes - r.kv_bytes);
  return static_cast<int>(std::clamp(std::floor(free / r.kv_bytes), 1.0,
                                     static_cast<double>(BatchedDecode::kMaxStreams)));
}

}  // namespace

BatchedDecode::BatchedDecode(const Plan& plan, const ModelDesc& model)
    : pipeline_(is_strategy(plan.strategy, StrategyKind::kPipeline) ||
                is_strategy(plan.strategy, StrategyKind::kHybrid)),
      token_latency_s_(plan.predicted.token_latency_s),
      activation_bytes_(plan.activation_bytes) {
  double total_weight = 0;
  for (const RankPlan& r : plan.ranks)
    total_weight += r.weight_bytes;
  max_streams_ = kMaxStreams;
  const bool head_last =
      plan.ranks.size() > 1 && !plan.ranks.front().holds_head && plan.ranks.back().holds_head;
  for (const RankPlan& r : plan.ranks) {
    RankCost c;
    const double part = rank_part(r, total_weight);
    auto layer_costs = [&](RankCost& x, int start, int end) {
      for (int l = start; l < end && l < model.num_layers(); ++l) {
        const LayerInfo& layer = model.layers[static_cast<size_t>(l)];
        x.flops += part * layer.flops;
        x.read += part * static_cast<double>(layer.read_bytes);
        if (layer.moe && layer.moe->experts > 0) {
          const MoeLayerInfo& m = *layer.moe;
          auto it = std::find_if(x.expert_reads.begin(), x.expert_reads.end(), [&](const auto& e) {
            return e.experts == m.experts && e.per_token == m.experts_per_token;
          });
          if (it == x.expert_reads.end())
            it = x.expert_reads.insert(x.expert_reads.end(),
                                       ExpertReads{m.experts, m.experts_per_token, 0});
          it->bytes += part * static_cast<double>(m.expert_bytes);
        }
      }
      x.layers = std::max(0, std::min(end, model.num_layers()) - start);
    };
    layer_costs(c, r.layer_start, r.layer_end);
    c.kv = r.kv_bytes;
    if (r.holds_head) {
      c.head_flops = model.head_flops();
      c.head_read = static_cast<double>(model.head_read_bytes());
    }
    c.F = r.flops > 0 ? r.flops : 1;
    c.BW = r.bandwidth > 0 ? r.bandwidth : 1;
    c.stage_s = r.stage_s;
    c.gpu_collective_s = r.gpu_collective_s;
    c.gpu_collective_per_stream_s = r.gpu_collective_per_stream_s;
    if (const auto& hop = r.tp_group.empty() ? r.hop_to_next : group_hop(plan, r)) {
      c.hop_latency_s = hop->latency_s;
      c.hop_bandwidth = hop->bandwidth;
    }
    if (pipeline_ && r.gpu_stages.size() > 1 && c.layers > 0) {
      // The host's groups of GPUs are stages of their own: each works on its own micro-batch.
      const double L = c.layers;
      // The head is on the first group, or on the last where the last rank holds it (llama.cpp
      // RPC, solvers/pipeline/gpu_stages.hpp).
      const size_t head_stage = head_last ? r.gpu_stages.size() - 1 : 0;
      for (size_t k = 0; k < r.gpu_stages.size(); ++k) {
        const auto& g = r.gpu_stages[k];
        RankCost x = c;
        x.flops = x.read = 0;
        x.expert_reads.clear();
        layer_costs(x, g.layer_start, g.layer_end);
        x.kv = c.kv * x.layers / L;
        x.stage_s = c.stage_s * x.layers / L;
        if (k != head_stage) x.head_flops = x.head_read = 0;
        if (k + 1 < r.gpu_stages.size()) x.hop_latency_s = x.hop_bandwidth = 0;
        ranks_.push_back(x);
      }
    } else if (stands_for_group(plan, r)) {
      ranks_.push_back(c);
    }
    kv_per_stream_ += r.kv_bytes;
    if (r.kv_bytes > 0) {
      const int n = kv_streams_that_fit(r);
      if (n < max_streams_ || tightest_.empty()) tightest_ = r.host;
      max_streams_ = std::min(max_streams_, n);
    }
  }
  if (plan.collective && plan.collective->bandwidth > 0) {
    // Two all-reduces of the activations per layer; their bytes grow with the streams.
    collective_extra_per_stream_s_ =
        plan.collective->layers * 2.0 * activation_bytes_ / plan.collective->bandwidth;
  }
  // One stream's figures, which every step's extra is measured from: worked out once, for a
  // throughput plan weighs every count of streams up to thousands.
  for (RankCost& r : ranks_) {
    for (ExpertReads& e : r.expert_reads)
      e.one = distinct_experts(e.experts, e.per_token, 1);
    r.one_s = rank_time(r, 1);
    r.one_hop_s = hop_time(r, 1);
  }
}

double BatchedDecode::step_read(const RankCost& r, int n) {
  double read = r.read;
  for (const ExpertReads& e : r.expert_reads)
    read += e.bytes * (distinct_experts(e.experts, e.per_token, n) - e.one);
  return read;
}

double BatchedDecode::rank_time(const RankCost& r, int n) const {
  const double N = n;
  double t = std::max(N * r.flops / r.F, (step_read(r, n) + N * r.kv) / r.BW);
  if (r.head_flops > 0) t += std::max(N * r.head_flops / r.F, r.head_read / r.BW);
  t += r.layers * (r.gpu_collective_s + (N - 1) * r.gpu_collective_per_stream_s);
  return t;
}

double BatchedDecode::hop_time(const RankCost& r, int n) const {
  if (r.hop_bandwidth <= 0) return 0;
  return r.hop_latency_s + n * activation_bytes_ / r.hop_bandwidth;
}

BatchedStep BatchedDecode::at(int streams) const {
  BatchedStep s;
  s.streams = std::max(1, streams);
  const int n = s.streams;
  for (const RankCost& r : ranks_)
    s.compute_bound = s.compute_bound || r.flops / r.F >= (step_read(r, n) + n * r.kv) / (n * r.BW);
  // One micro-batch of b streams through every rank: the strategy's latency plus what the
  // extra streams add (summed along a pipeline, the slowest rank when ranks work side by side).
  // `times`: each rank's rank_time at b.
  auto sequential = [&](int b, const std::vector<double>& times) {
    double extra = 0;
    for (size_t i = 0; i < ranks_.size(); ++i) {
      const RankCost& r = ranks_[i];
      double d = times[i] - r.one_s + hop_time(r, b) - r.one_hop_s;
      extra = pipeline_ ? extra + d : std::max(extra, d);
    }
    return token_latency_s_ + extra + (b - 1) * collective_extra_per_stream_s_;
  };
  auto times_at = [&](int b) {
    std::vector<double> times(ranks_.size());
    for (size_t i = 0; i < ranks_.size(); ++i)
      times[i] = rank_time(ranks_[i], b);
    return times;
  };
  if (pipeline_ && ranks_.size() > 1) {
    const int k = std::min<int>(n, static_cast<int>(ranks_.size()));
    const int b = (n + k - 1) / k;
    // Counts of streams that share k and b share the round: the last one is kept.
    if (k != round_k_ || b != round_b_) {
      const std::vector<double> times = times_at(b);
      double slowest = 0;
      for (size_t i = 0; i < ranks_.size(); ++i) {
        const RankCost& r = ranks_[i];
        slowest = std::max(slowest, r.stage_s + times[i] - r.one_s + hop_time(r, b));
      }
      round_s_ = std::max(sequential(b, times), k * slowest);
      round_k_ = k;
      round_b_ = b;
    }
    s.round_s = round_s_;
  } else {
    s.round_s = sequential(n, times_at(n));
  }
  s.stream_tokens_per_s = 1 / s.round_s;
  s.aggregate_tokens_per_s = n / s.round_s;
  return s;
}

double objective_seconds(const Plan& plan, const ModelDesc& model, bool throughput,
                         int concurrency) {
  if (!throughput) return plan.predicted.token_latency_s;
  BatchedDecode batched(plan, model);
  const int n =
      concurrency > 0 ? std::min(concurrency, batched.max_streams()) : batched.max_streams();
  const double a = batched.at(n).aggregate_tokens_per_s;
  return a > 0 ? 1 / a : std::numeric_limits<double>::infinity();
}

}  // namespace meshplan
