#include "solvers/pipeline/faster_pipeline_hosts.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <numeric>
#include <set>

namespace meshplan {
namespace {

constexpr double kNone = std::numeric_limits<double>::infinity();

// Host h's token time holding the whole model alone; infinite when its memory does not hold it.
double alone_s(const PipelineCostModel& cost, size_t h) {
  const int L = cost.num_layers();
  return cost.stage_memory(0, L, true) <= cost.host(h).usable_bytes
             ? cost.stage_time(h, 0, L) + cost.head_time(h)
             : kNone;
}

// The fastest hosts filling their memory in turn, from the first layer: the fewest of them that
// hold every layer, measured by the cost model.
std::optional<KnownPipeline> fastest_filled(const PipelineCostModel& cost, size_t most_ranks) {
  const int L = cost.num_layers();
  std::vector<size_t> order(cost.num_hosts());
  std::iota(order.begin(), order.end(), size_t{0});
  auto all_layers = [&](size_t h) { return cost.time_prefix(h)[static_cast<size_t>(L)]; };
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return all_layers(a) < all_layers(b); });
  // k ranks: each but the last takes all its memory holds (leaving a layer for each rank after
  // it), the last takes the rest; the head's rank counts the embedding and LM head.
  for (size_t k = 2; k <= order.size() && k <= static_cast<size_t>(L) && k <= most_ranks; ++k) {
    const size_t head = cost.head_rank(k);
    PipelineAssignment a{{}, {0}};
    int s = 0;
    for (size_t j = 0; j < k; ++j) {
      const double usable = cost.host(order[j]).usable_bytes;
      const int most = L - static_cast<int>(k - 1 - j);
      int t = s;
      if (j + 1 == k) {
        t = cost.stage_memory(s, L, j == head) <= usable ? L : s;
      } else {
        while (t < most && cost.stage_memory(s, t + 1, j == head) <= usable)
          ++t;
      }
      if (t == s) break;
      a.order.push_back(order[j]);
      a.cuts.push_back(t);
      s = t;
    }
    if (s < L) {
      // A rank before the last that holds no layer stays so with more ranks after it.
      if (a.order.size() + 1 < k) return std::nullopt;
      continue;
    }
    const PipelineEvaluation e = cost.evaluate(a);
    if (!e.feasible) return std::nullopt;
    return KnownPipeline{a, e.token_latency_s};
  }
  return std::nullopt;
}

}  // namespace

std::vector<size_t> hosts_a_faster_pipeline_may_use(const PipelineCostModel& cost,
                                                    double latency_s) {
  const size_t n = cost.num_hosts();
  const int L = cost.num_layers();
  // A host in a pipeline of two or more ranks has a hop in and a hop out; one without either
  // can only hold the whole model alone.
  const std::vector<double> out_hop = cost.least_hops(false), in_hop = cost.least_hops(true);
  auto linked = [&](size_t h) { return out_hop[h] < kNone && in_hop[h] < kNone; };
  // Over the linked hosts: each layer's fastest time, and the least LM head time.
  // Hosts of the same figures share their row of prefix sums: each row is read once.
  std::vector<double> fastest(static_cast<size_t>(L), kNone);
  double head = kNone;
  std::set<const std::vector<double>*> rows;
  for (size_t h = 0; h < n; ++h) {
    if (!linked(h)) continue;
    head = std::min(head, cost.head_time(h));
    const std::vector<double>& p = cost.time_prefix(h);
    if (!rows.insert(&p).second) continue;
    for (size_t l = 0; l < fastest.size(); ++l)
      fastest[l] = std::min(fastest[l], p[l + 1] - p[l]);
  }
  double all = 0;
  for (double t : fastest)
    all += t;
  std::vector<size_t> out;
  std::map<const std::vector<double>*, double> excess_of;  // per row: its least excess on a layer
  for (size_t h = 0; h < n; ++h) {
    double least = alone_s(cost, h);
    if (linked(h)) {
      const std::vector<double>& p = cost.time_prefix(h);
      auto [at, fresh] = excess_of.try_emplace(&p, kNone);
      if (fresh)
        for (size_t l = 0; l < fastest.size(); ++l)
          at->second = std::min(at->second, p[l + 1] - p[l] - fastest[l]);
      const double excess = at->second;
      least = std::min(least, all + std::max(0.0, excess) + cost.host(h).overhead_s + head +
                                  out_hop[h] + in_hop[h]);
    }
    // Rounding must never leave out a host that ties: only a clear excess does.
    if (least < latency_s * (1 + 1e-9)) out.push_back(h);
  }
  return out;
}

std::optional<KnownPipeline> fast_known_pipeline(const PipelineCostModel& cost, size_t most_ranks) {
  std::optional<KnownPipeline> best;
  for (size_t h = 0; h < cost.num_hosts(); ++h)
    if (const double t = alone_s(cost, h); t < kNone && (!best || t < best->latency_s))
      best = KnownPipeline{{{h}, {0, cost.num_layers()}}, t};
  if (std::optional<KnownPipeline> filled = fastest_filled(cost, most_ranks))
    if (!best || filled->latency_s < best->latency_s) best = std::move(filled);
  return best;
}

}  // namespace meshplan
