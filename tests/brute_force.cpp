#include "tests/brute_force.hpp"

#include <functional>

namespace meshplan {

SearchResult brute_force_pipeline(const PipelineCostModel& cost,
                                  const PipelineConstraints& constraints) {
  SearchResult best;
  best.exact = true;
  best.method = "brute force";
  const size_t n = cost.num_hosts();
  const int L = cost.num_layers();
  const int min_hosts = std::max(1, constraints.min_hosts);
  const int max_hosts = constraints.max_hosts > 0 ? constraints.max_hosts : static_cast<int>(n);
  std::vector<size_t> order;
  std::vector<bool> used(n, false);
  std::vector<int> cuts;

  auto pins_hold = [&](const PipelineAssignment& a) {
    for (const RangePin& p : constraints.pins) {
      bool found = false;
      for (size_t j = 0; j < a.order.size(); ++j) {
        if (a.order[j] == p.host) found = a.cuts[j] == p.start && a.cuts[j + 1] == p.end;
      }
      if (!found) return false;
    }
    return true;
  };
  auto consider = [&]() {
    PipelineAssignment a{order, cuts};
    if (!pins_hold(a)) return;
    PipelineEvaluation e = cost.evaluate(a);
    ++best.states;
    if (e.feasible && e.token_latency_s < best.latency_s) {
      best.feasible = true;
      best.latency_s = e.token_latency_s;
      best.assignment = a;
    }
  };
  // Cut positions for the current order: cuts[1..m-1] strictly increasing in [1, L-1].
  std::function<void(size_t)> split = [&](size_t j) {
    const size_t m = order.size();
    if (j == m) {
      consider();
      return;
    }
    for (int c = cuts[j - 1] + 1; c <= L - static_cast<int>(m - j); ++c) {
      cuts[j] = c;
      split(j + 1);
    }
  };
  std::function<void()> extend = [&]() {
    const int m = static_cast<int>(order.size());
    if (m >= min_hosts && m <= L) {
      cuts.assign(order.size() + 1, 0);
      cuts.back() = L;
      if (m == 1)
        consider();
      else
        split(1);
    }
    if (m >= max_hosts) return;
    for (size_t h = 0; h < n; ++h) {
      if (used[h]) continue;
      used[h] = true;
      order.push_back(h);
      extend();
      order.pop_back();
      used[h] = false;
    }
  };
  extend();
  return best;
}

}  // namespace meshplan
