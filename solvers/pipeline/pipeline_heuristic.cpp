#include "solvers/pipeline/pipeline_heuristic.hpp"

#include <algorithm>
#include <numeric>
#include <optional>

#include "solvers/pipeline/exact_pipeline.hpp"
#include "solvers/pipeline/range_dp.hpp"

namespace meshplan {
namespace {

// Finite stand-in for a missing link in the tour heuristic.
constexpr double kNoLink = 1e3;

double tour_hop(const SearchSpace& sp, size_t a, size_t b) {
  double h = sp.hop(a, b);
  return h < kInfinity ? h : kNoLink;
}

// Makes a seed order consistent with the pins: pinned hosts keep their positions but follow each
// other in the order of their ranges, and a host pinned at layer 0 comes first; otherwise the
// order is rotated to start with a host that may be rank 0.
void rotate_to_head(const SearchSpace& sp, std::vector<size_t>& seq) {
  std::vector<size_t> positions, pinned;
  for (size_t i = 0; i < seq.size(); ++i) {
    if (!sp.pin(seq[i])) continue;
    positions.push_back(i);
    pinned.push_back(seq[i]);
  }
  std::stable_sort(pinned.begin(), pinned.end(),
                   [&](size_t a, size_t b) { return sp.pin(a)->first < sp.pin(b)->first; });
  for (size_t k = 0; k < positions.size(); ++k)
    seq[positions[k]] = pinned[k];
  auto it = std::find_if(seq.begin(), seq.end(),
                         [&](size_t h) { return sp.pin(h) && sp.pin(h)->first == 0; });
  if (it == seq.end())
    it = std::find_if(seq.begin(), seq.end(), [&](size_t h) { return sp.can_head(h); });
  if (it != seq.end()) std::rotate(seq.begin(), it, seq.end());
}

std::vector<size_t> by_speed(const SearchSpace& sp, std::vector<size_t> hosts) {
  std::stable_sort(hosts.begin(), hosts.end(), [&](size_t a, size_t b) {
    return sp.prefix(a, sp.num_layers()) < sp.prefix(b, sp.num_layers());
  });
  return hosts;
}

// Nearest-neighbour tour from `start`, improved by 2-opt on the cycle of hop costs.
std::vector<size_t> short_tour(const SearchSpace& sp, const std::vector<size_t>& hosts,
                               size_t start) {
  std::vector<size_t> tour{start};
  std::vector<bool> used(sp.num_hosts(), false);
  used[start] = true;
  for (size_t step = 1; step < hosts.size(); ++step) {
    size_t cur = tour.back(), best = hosts[0];
    double best_cost = kInfinity;
    for (size_t v : hosts) {
      if (used[v]) continue;
      double c = tour_hop(sp, cur, v);
      if (c < best_cost) {
        best_cost = c;
        best = v;
      }
    }
    used[best] = true;
    tour.push_back(best);
  }
  const size_t n = tour.size();
  for (int pass = 0; pass < 20 && n >= 4; ++pass) {
    bool improved = false;
    for (size_t i = 0; i + 2 < n; ++i) {
      for (size_t j = i + 2; j < n; ++j) {
        size_t a = tour[i], b = tour[i + 1], c = tour[j], d = tour[(j + 1) % n];
        if (a == d) continue;
        double delta =
            tour_hop(sp, a, c) + tour_hop(sp, b, d) - tour_hop(sp, a, b) - tour_hop(sp, c, d);
        if (delta < -1e-12) {
          std::reverse(tour.begin() + static_cast<std::ptrdiff_t>(i + 1),
                       tour.begin() + static_cast<std::ptrdiff_t>(j + 1));
          improved = true;
        }
      }
    }
    if (!improved) break;
  }
  return tour;
}

// Local search on the ring of the incumbent: insert a free host, replace a host by a free one,
// swap two ranks or reverse a stretch, keeping the first move that is faster, until none is or
// the evaluations run out.
void local_search(const SearchSpace& sp, const HostClasses& classes,
                  const HeuristicOptions& options, SearchResult& best, long long& evaluations) {
  auto better = [&](const SearchResult& r) {
    return r.feasible && r.latency_s < best.latency_s * (1 - 1e-12);
  };
  std::vector<bool> in_ring(sp.num_hosts(), false);
  auto try_sequence = [&](const std::vector<size_t>& seq) {
    ++evaluations;
    SearchResult r = best_on_sequence(sp, seq, true);
    if (!better(r)) return false;
    best = r;
    return true;
  };
  for (bool improved = true; improved && evaluations < options.max_evaluations;) {
    improved = false;
    const std::vector<size_t> ring = best.assignment.order;
    std::fill(in_ring.begin(), in_ring.end(), false);
    for (size_t h : ring)
      in_ring[h] = true;
    std::vector<size_t> free_hosts;  // one free member per class
    for (const auto& members : classes.members) {
      for (size_t h : members) {
        if (!in_ring[h]) {
          free_hosts.push_back(h);
          break;
        }
      }
    }
    const size_t m = ring.size();
    // Insert a free host after position p.
    for (size_t f : free_hosts) {
      for (size_t p = 0; p < m && !improved && evaluations < options.max_evaluations; ++p) {
        std::vector<size_t> seq = ring;
        seq.insert(seq.begin() + static_cast<std::ptrdiff_t>(p + 1), f);
        improved = try_sequence(seq);
      }
      if (improved) break;
    }
    // Replace a host by a free one.
    for (size_t p = 0; p < m && !improved; ++p) {
      for (size_t f : free_hosts) {
        if (evaluations >= options.max_evaluations) break;
        if (p == 0 && !sp.can_head(f)) continue;
        std::vector<size_t> seq = ring;
        seq[p] = f;
        if ((improved = try_sequence(seq))) break;
      }
    }
    // Swap two ranks; reverse a stretch after the head.
    for (size_t p = 0; p < m && !improved; ++p) {
      for (size_t r = p + 1; r < m && !improved && evaluations < options.max_evaluations; ++r) {
        std::vector<size_t> seq = ring;
        std::swap(seq[p], seq[r]);
        if (!sp.can_head(seq[0])) continue;
        improved = try_sequence(seq);
        if (!improved && p >= 1 && r >= p + 2) {
          seq = ring;
          std::reverse(seq.begin() + static_cast<std::ptrdiff_t>(p),
                       seq.begin() + static_cast<std::ptrdiff_t>(r + 1));
          improved = try_sequence(seq);
        }
      }
    }
  }
}

// The hosts the exact polish searches: those the ring uses plus one more member per class, the
// fastest classes first, while the subsets stay within kExactSubsetLimit; none when the ring's
// own hosts already exceed it.
std::optional<HostClasses> polish_pool(const SearchSpace& sp, const HostClasses& classes,
                                       const SearchResult& best) {
  std::vector<int> used(classes.size(), 0);
  for (size_t h : best.assignment.order)
    ++used[static_cast<size_t>(classes.class_of[h])];
  std::vector<int> allowed = used;
  double subsets = 1;
  for (int u : used)
    subsets *= u + 1;
  if (subsets > kExactSubsetLimit) return std::nullopt;
  std::vector<size_t> order(classes.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return sp.prefix(classes.members[a][0], sp.num_layers()) <
           sp.prefix(classes.members[b][0], sp.num_layers());
  });
  for (size_t k : order) {
    if (allowed[k] >= static_cast<int>(classes.members[k].size())) continue;
    double next = subsets / (allowed[k] + 1) * (allowed[k] + 2);
    if (next > kExactSubsetLimit) continue;
    ++allowed[k];
    subsets = next;
  }
  HostClasses pool;
  pool.class_of.assign(sp.num_hosts(), -1);
  for (size_t k = 0; k < classes.size(); ++k) {
    if (allowed[k] == 0) continue;
    std::vector<size_t> members(classes.members[k].begin(),
                                classes.members[k].begin() + allowed[k]);
    for (size_t h : members)
      pool.class_of[h] = static_cast<int>(pool.members.size());
    pool.members.push_back(members);
  }
  return pool;
}

}  // namespace

std::vector<std::vector<size_t>> seed_orders(const SearchSpace& sp,
                                             const std::vector<size_t>& given_order) {
  std::vector<std::vector<size_t>> seeds;
  std::vector<size_t> given = given_order;
  rotate_to_head(sp, given);
  seeds.push_back(given);
  std::vector<size_t> fast = by_speed(sp, given_order);
  rotate_to_head(sp, fast);
  seeds.push_back(fast);
  if (given_order.size() >= 3) {
    std::vector<size_t> tour = short_tour(sp, given_order, fast.front());
    rotate_to_head(sp, tour);
    seeds.push_back(tour);
  }
  return seeds;
}

SearchResult heuristic_pipeline_search(const SearchSpace& sp, const HostClasses& classes,
                                       const std::vector<size_t>& given_order,
                                       const HeuristicOptions& options) {
  SearchResult best;
  long long evaluations = 0;
  auto better = [&](const SearchResult& r) {
    return r.feasible && r.latency_s < best.latency_s * (1 - 1e-12);
  };
  for (const auto& seq : seed_orders(sp, given_order)) {
    SearchResult r = best_on_sequence(sp, seq, true);
    ++evaluations;
    if (better(r)) best = r;
  }
  if (!best.feasible) {
    best.method = "heuristic search (no feasible ring order found)";
    best.states = evaluations;
    return best;
  }

  local_search(sp, classes, options, best, evaluations);

  // Polish: exact search over the hosts used plus one more member per class, within the limit.
  if (const std::optional<HostClasses> pool = polish_pool(sp, classes, best)) {
    auto exact = exact_pipeline_search(sp, *pool, best.latency_s);
    if (exact && exact->feasible && exact->latency_s < best.latency_s) {
      best.assignment = exact->assignment;
      best.latency_s = exact->latency_s;
    }
    if (exact) evaluations += exact->states;
  }
  best.exact = false;
  best.states = evaluations;
  best.method =
      "heuristic: seeded ring orders, local search over hosts and order with exact layer ranges, "
      "exact polish";
  return best;
}

}  // namespace meshplan
