#include "solvers/routed/routed_streams.hpp"

#include <glpk.h>

#include <algorithm>
#include <numeric>

#include <exception>
#include <memory>
#include <thread>

namespace meshplan {

bool routed_dominated(const RoutedInstance& b, const RoutedInstance& a) {
  if (a.layers != b.layers || a.hosts.size() != b.hosts.size()) return false;
  if (a.link != b.link || a.links != b.links || a.message_bytes != b.message_bytes) return false;
  for (size_t i = 0; i < a.hosts.size(); ++i) {
    const RoutedHost &x = a.hosts[i], &y = b.hosts[i];
    if (y.table.size() > x.table.size() || y.head_s < x.head_s ||
        y.max_with_first > x.max_with_first || y.max_with_last > x.max_with_last ||
        y.max_with_both > x.max_with_both)
      return false;
    for (size_t k = 0; k < y.table.size(); ++k)
      if (y.table[k] > x.table[k]) return false;
  }
  return true;
}

namespace {

std::unique_ptr<Clock> own_clock(const Clock* clock) {
  if (const auto* w = dynamic_cast<const WorkClock*>(clock))
    return std::make_unique<WorkClock>(w->tick_s());
  if (const auto* f = dynamic_cast<const FakeClock*>(clock)) return std::make_unique<FakeClock>(*f);
  return std::make_unique<SteadyClock>();
}

// fn(0) here and fn(1) on a thread of its own, which frees GLPK's environment for that thread
// (GLPK keeps one a thread) before it ends. The first exception thrown is rethrown.
template <typename F>
void side_by_side(size_t n, F&& fn) {
  std::exception_ptr second;
  std::thread worker;
  if (n > 1)
    worker = std::thread([&] {
      try {
        fn(1);
      } catch (...) {
        second = std::current_exception();
      }
      glp_free_env();
    });
  std::exception_ptr first;
  try {
    if (n > 0) fn(0);
  } catch (...) {
    first = std::current_exception();
  }
  if (worker.joinable()) worker.join();
  if (first) std::rethrow_exception(first);
  if (second) std::rethrow_exception(second);
}

}  // namespace

StreamChoice choose_stream_count(const std::vector<StreamCount>& counts,
                                 const RoutedOptions& options, const StreamValue& value) {
  const size_t n = counts.size();
  // A count another count dominates (the fewer streams kept where two are alike) is left out;
  // not where what a count serves is less than its flow (more streams then serve less).
  std::vector<bool> kept(n, true);
  for (size_t j = 0; j < n && !value; ++j)
    for (size_t i = 0; i < n && kept[j]; ++i)
      if (i != j && kept[i] && routed_dominated(counts[j].instance, counts[i].instance) &&
          (!routed_dominated(counts[i].instance, counts[j].instance) ||
           counts[i].streams < counts[j].streams))
        kept[j] = false;
  std::vector<RoutedBound> bound(n);
  std::vector<size_t> order;
  for (size_t k = 0; k < n; ++k)
    if (kept[k]) {
      bound[k] = routed_upper_bound(counts[k].instance);
      order.push_back(k);
    }
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return bound[a].tokens_per_s > bound[b].tokens_per_s;
  });
  StreamChoice out;
  bool any = false;
  double best = 0;  // what the count kept serves
  auto take = [&](size_t k, RoutedSolution& s) {
    const double v = value ? value(counts[k], s) : s.flow.total;
    const bool better = v > best * (1 + 1e-9);
    const bool tie = !better && v >= best * (1 - 1e-9);
    if (!any || better || (tie && counts[k].streams < counts[out.index].streams)) {
      out.index = k;
      out.solution = std::move(s);
      best = v;
      any = true;
    }
  };
  for (size_t next = 0; next < order.size();) {
    // The next two counts whose bound passes the best flow so far, searched side by side.
    std::vector<size_t> pair;
    while (next < order.size() && pair.size() < 2) {
      const size_t k = order[next++];
      if (!any || bound[k].tokens_per_s > best * (1 + 1e-9)) pair.push_back(k);
    }
    if (pair.empty()) break;
    std::vector<RoutedSolution> found(pair.size());
    side_by_side(pair.size(), [&](size_t p) {
      // Each search reads a clock of its own, of the caller's kind: two searches reading one
      // work clock would interleave their readings, and what each reports with them.
      const std::unique_ptr<Clock> clock = own_clock(options.clock);
      RoutedOptions mine = options;
      mine.clock = clock.get();
      found[p] = solve_routed(counts[pair[p]].instance, mine, &bound[pair[p]]);
    });
    for (size_t p = 0; p < pair.size(); ++p)
      take(pair[p], found[p]);
    out.searched += static_cast<int>(pair.size());
  }
  return out;
}

}  // namespace meshplan
