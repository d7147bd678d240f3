#include "solvers/pipeline/even_split.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "lib/core/units.hpp"
#include "lib/plan/engines.hpp"

namespace meshplan {
namespace {

// Orders of a chosen set that are tried: all of them for small sets; the cost of a pipeline of
// equal stages depends on the order only through its hops and the head's host, so rotations of
// the candidates' order are enough beyond that.
constexpr size_t kAllOrdersUpTo = 6;

struct Search {
  const PipelineCostModel& cost;
  double best = std::numeric_limits<double>::infinity();
  PipelineAssignment best_assignment;
  std::string memory_short;  // the first memory shortfall seen, for the message

  void try_order(const std::vector<size_t>& order, int per_rank) {
    PipelineAssignment a;
    a.order = order;
    for (size_t j = 0; j <= order.size(); ++j)
      a.cuts.push_back(static_cast<int>(j) * per_rank);
    // Every rank loads the embedding and the LM head besides its layers.
    for (size_t j = 0; j < order.size(); ++j) {
      const HostFigures& h = cost.host(order[j]);
      const double need = cost.stage_memory(a.cuts[j], a.cuts[j + 1], true);
      if (need > h.usable_bytes) {
        if (memory_short.empty())
          memory_short =
              fmt::format("{} needs {} for {} layers and the embedding/LM head but has {} usable",
                          h.name, format_gib(need), per_rank, format_gib(h.usable_bytes));
        return;
      }
    }
    PipelineEvaluation e = cost.evaluate(a);
    if (e.feasible && e.token_latency_s < best) {
      best = e.token_latency_s;
      best_assignment = std::move(a);
    }
  }
};

// Every order of `set` (sorted), as std::next_permutation would visit them, but depth first with
// the orders that cannot beat the best so far cut off: the stages still to place cost at least
// their cheapest host each, and hops cost nothing or more. The orders that remain go through
// try_order, so the result (ties to the first) is that of trying them all.
void try_every_order(Search& search, const std::vector<size_t>& set, int per_rank,
                     const std::vector<int>& kind) {
  const PipelineCostModel& cost = search.cost;
  const size_t k = set.size();
  std::vector<double> rest(k + 1, 0);  // rest[j]: the least the stages j.. can cost
  for (size_t j = k; j-- > 0;) {
    double least = std::numeric_limits<double>::infinity();
    for (size_t h : set)
      least = std::min(least, cost.stage_time(h, static_cast<int>(j) * per_rank,
                                              static_cast<int>(j + 1) * per_rank));
    rest[j] = rest[j + 1] + least;
  }
  std::vector<size_t> order;
  std::vector<char> used(k, 0);
  auto visit = [&](auto&& self, size_t j, double partial) -> void {
    if (j == k) {
      search.try_order(order, per_rank);
      return;
    }
    const int start = static_cast<int>(j) * per_rank, end = start + per_rank;
    for (size_t i = 0; i < k; ++i) {
      if (used[i]) continue;
      // Alike hosts in set order: the first of the orders that differ only in where alike hosts
      // stand, which all cost the same.
      bool later = false;
      for (size_t e = 0; e < i && !later; ++e)
        later = !used[e] && kind[set[e]] == kind[set[i]];
      if (later) continue;
      const size_t h = set[i];
      const HostFigures& figures = cost.host(h);
      const double need = cost.stage_memory(start, end, true);
      if (need > figures.usable_bytes) {
        if (search.memory_short.empty())
          search.memory_short = fmt::format(
              "{} needs {} for {} layers and the embedding/LM head but has {} usable", figures.name,
              format_gib(need), per_rank, format_gib(figures.usable_bytes));
        continue;
      }
      double add = cost.stage_time(h, start, end);
      if (j == cost.head_rank(k)) add += cost.head_time(h);
      if (j > 0) {
        if (!cost.link(order.back(), h)) continue;
        add += cost.hop_time(order.back(), h);
      }
      if (partial + add + rest[j + 1] > search.best * (1 + 1e-12)) continue;
      used[i] = 1;
      order.push_back(h);
      self(self, j + 1, partial + add);
      order.pop_back();
      used[i] = 0;
    }
  };
  visit(visit, 0, 0.0);
}

// Calls `f` with every k-subset of `items` in increasing index order.
template <typename F>
void for_each_subset(const std::vector<size_t>& items, size_t k, F&& f) {
  std::vector<bool> pick(items.size(), false);
  std::fill(pick.begin(), pick.begin() + static_cast<std::ptrdiff_t>(k), true);
  do {
    std::vector<size_t> chosen;
    for (size_t i = 0; i < items.size(); ++i)
      if (pick[i]) chosen.push_back(items[i]);
    f(chosen);
  } while (std::prev_permutation(pick.begin(), pick.end()));
}

}  // namespace

EvenSplitResult best_even_split(const PipelineCostModel& cost, const PipelineConstraints& c) {
  EvenSplitResult out;
  const int layers = cost.num_layers();
  std::vector<size_t> hosts(cost.num_hosts());
  std::iota(hosts.begin(), hosts.end(), 0);
  out.exhaustive = hosts.size() <= kEvenSplitExactHosts;
  if (!out.exhaustive) {
    // The fastest hosts for the whole model keep the search small.
    std::stable_sort(hosts.begin(), hosts.end(), [&](size_t a, size_t b) {
      return cost.stage_time(a, 0, layers) < cost.stage_time(b, 0, layers);
    });
    hosts.resize(kEvenSplitExactHosts);
  }
  // Hosts alike for an even split: the same figures and the same links to each other host
  // searched, so that swapping two of them changes no order's cost. Of alike hosts a set takes
  // the first ones and an order keeps them in set order: the first of the sets and orders that
  // cost the same, as trying them all would keep.
  std::vector<int> kind(cost.num_hosts(), -1);
  {
    auto alike = [&](size_t a, size_t b) {
      const HostFigures &x = cost.host(a), &y = cost.host(b);
      if (x.usable_bytes != y.usable_bytes || x.bandwidth != y.bandwidth || x.flops != y.flops ||
          x.prefill_flops != y.prefill_flops || x.overhead_s != y.overhead_s ||
          cost.head_time(a) != cost.head_time(b) || cost.link(a, b) != cost.link(b, a) ||
          cost.hop_time(a, b) != cost.hop_time(b, a))
        return false;
      for (size_t k : hosts)
        if (k != a && k != b &&
            (cost.link(a, k) != cost.link(b, k) || cost.link(k, a) != cost.link(k, b) ||
             cost.hop_time(a, k) != cost.hop_time(b, k) ||
             cost.hop_time(k, a) != cost.hop_time(k, b)))
          return false;
      return true;
    };
    // A kind's hosts are alike two by two, so any swap among them changes no cost.
    std::vector<std::vector<size_t>> members;
    for (size_t h : hosts) {
      for (size_t c = 0; c < members.size() && kind[h] < 0; ++c)
        if (std::all_of(members[c].begin(), members[c].end(),
                        [&](size_t m) { return alike(m, h); })) {
          kind[h] = static_cast<int>(c);
          members[c].push_back(h);
        }
      if (kind[h] < 0) {
        kind[h] = static_cast<int>(members.size());
        members.push_back({h});
      }
    }
  }
  // Whether a set takes, of each kind, the first hosts in `hosts` order.
  auto first_of_kinds = [&](const std::vector<size_t>& set) {
    std::vector<bool> skipped(hosts.size(), false);
    size_t at = 0;
    for (size_t h : hosts) {
      const bool taken = at < set.size() && set[at] == h;
      if (taken) ++at;
      if (taken && skipped[static_cast<size_t>(kind[h])]) return false;
      if (!taken) skipped[static_cast<size_t>(kind[h])] = true;
    }
    return true;
  };
  Search search{cost, std::numeric_limits<double>::infinity(), {}, {}};
  const size_t most =
      c.max_hosts > 0 ? std::min(hosts.size(), static_cast<size_t>(c.max_hosts)) : hosts.size();
  std::vector<int> counts;
  for (size_t k = static_cast<size_t>(std::max(1, c.min_hosts)); k <= most; ++k) {
    if (layers % static_cast<int>(k) != 0) continue;
    counts.push_back(static_cast<int>(k));
    const int per_rank = layers / static_cast<int>(k);
    for_each_subset(hosts, k, [&](std::vector<size_t> set) {
      if (!first_of_kinds(set)) return;
      if (k <= kAllOrdersUpTo) {
        try_every_order(search, set, per_rank, kind);
      } else {
        for (size_t r = 0; r < k; ++r) {
          search.try_order(set, per_rank);
          std::rotate(set.begin(), set.begin() + 1, set.end());
        }
        out.exhaustive = false;
      }
    });
  }
  if (std::isfinite(search.best)) {
    out.feasible = true;
    out.assignment = std::move(search.best_assignment);
    return out;
  }
  std::string divisors;
  for (int k : counts)
    divisors += fmt::format("{}{}", divisors.empty() ? "" : ", ", k);
  out.why = fmt::format(
      "mlx-lm's equal split of {} layers runs on {} here (other counts leave layers on no rank)",
      layers, divisors.empty() ? std::string("no number of hosts") : divisors + " host(s)");
  if (!search.memory_short.empty()) out.why += "; " + search.memory_short;
  return out;
}

}  // namespace meshplan
