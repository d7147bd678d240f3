#include "solvers/even_split.hpp"

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
  Search search{cost, std::numeric_limits<double>::infinity(), {}, {}};
  const size_t most =
      c.max_hosts > 0 ? std::min(hosts.size(), static_cast<size_t>(c.max_hosts)) : hosts.size();
  std::vector<int> counts;
  for (size_t k = static_cast<size_t>(std::max(1, c.min_hosts)); k <= most; ++k) {
    if (layers % static_cast<int>(k) != 0) continue;
    counts.push_back(static_cast<int>(k));
    const int per_rank = layers / static_cast<int>(k);
    for_each_subset(hosts, k, [&](std::vector<size_t> set) {
      if (k <= kAllOrdersUpTo) {
        do {
          search.try_order(set, per_rank);
        } while (std::next_permutation(set.begin(), set.end()));
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
