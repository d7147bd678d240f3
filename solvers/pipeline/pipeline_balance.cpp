#include "solvers/pipeline/pipeline_balance.hpp"

#include <algorithm>

namespace meshplan {
namespace {

// Fills sorted from the fullest down: compared lexicographically, so that after the fullest host
// the next fullest is evened out too.
std::vector<double> fills(const PipelineCostModel& cost, const PipelineAssignment& a,
                          const PipelineEvaluation& e) {
  std::vector<double> f;
  for (size_t j = 0; j < a.order.size(); ++j) {
    const double usable = cost.host(a.order[j]).usable_bytes;
    f.push_back(usable > 0 ? e.memory_bytes[j] / usable : 1e9);
  }
  std::sort(f.rbegin(), f.rend());
  return f;
}

bool less_full(const std::vector<double>& a, const std::vector<double>& b) {
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i] < b[i] - 1e-12) return true;
    if (a[i] > b[i] + 1e-12) return false;
  }
  return false;
}

}  // namespace

PipelineAssignment balance_memory(const PipelineCostModel& cost, PipelineAssignment a) {
  const size_t ranks = a.order.size();
  if (ranks < 2) return a;
  PipelineEvaluation base = cost.evaluate(a);
  if (!base.feasible) return a;
  const double limit = base.token_latency_s * (1 + 1e-12);
  std::vector<double> current = fills(cost, a, base);
  const int max_moves = cost.num_layers() * static_cast<int>(ranks);
  for (int move = 0; move < max_moves; ++move) {
    PipelineAssignment best = a;
    std::vector<double> best_fill = current;
    for (size_t j = 1; j < ranks; ++j) {
      for (int step : {-1, 1}) {
        PipelineAssignment t = a;
        t.cuts[j] += step;
        if (t.cuts[j] <= t.cuts[j - 1] || t.cuts[j] >= t.cuts[j + 1]) continue;
        PipelineEvaluation e = cost.evaluate(t);
        if (!e.feasible || e.token_latency_s > limit) continue;
        std::vector<double> f = fills(cost, t, e);
        if (less_full(f, best_fill)) {
          best = std::move(t);
          best_fill = std::move(f);
        }
      }
    }
    if (!less_full(best_fill, current)) break;
    a = std::move(best);
    current = std::move(best_fill);
  }
  return a;
}

}  // namespace meshplan
