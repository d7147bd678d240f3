#include "solvers/routed/routed_chains.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <random>

#include "solvers/routed/routed_greedy.hpp"
#include "solvers/routed/routed_regions.hpp"
#include "solvers/routed/routed_stage_program.hpp"
#include "solvers/routed/routed_stages.hpp"
#include "solvers/routed/routed_sweep.hpp"

namespace meshplan {
namespace {

// The hosts of a set of regions, as an instance of their own, and their best chain in any order.
class RegionSet {
 public:
  RegionSet(const RoutedInstance& in, const std::vector<std::vector<size_t>>& regions,
            const std::vector<size_t>& set)
      : set_(set) {
    for (size_t r : set)
      members_.insert(members_.end(), regions[r].begin(), regions[r].end());
    std::sort(members_.begin(), members_.end());
    sub_ = routed_reordered(in, members_);
    groups_ = interchangeable_hosts(sub_);
    high_ = routed_upper_bound(sub_).tokens_per_s;
    // The regions as the sweep numbers them on the set's own instance: by their first member.
    const std::vector<std::vector<size_t>> own = routed_regions(sub_);
    for (size_t r : set) {
      const size_t first = static_cast<size_t>(
          std::lower_bound(members_.begin(), members_.end(), regions[r].front()) -
          members_.begin());
      for (size_t k = 0; k < own.size(); ++k)
        if (std::binary_search(own[k].begin(), own[k].end(), first)) own_index_[r] = k;
    }
  }

  // The best chain over every order of the set's regions (one region: it alone), as a layout of
  // `in`'s hosts: each order's bisections, then perturbed sweeps until `deadline` on `clock`
  // (read once an order and every kSweepsPerRead sweeps).
  std::pair<double, RoutedLayout> best(size_t hosts, const Clock& clock, double deadline) {
    Chains out;
    out.layout.assign(members_.size(), {});
    if (high_ > 0 && set_.size() == 1) {
      // The region alone: the best of its single pipeline, its sweep and its stage program.
      WorkClock steps(1);
      out = best_pipeline(sub_, std::vector<bool>(members_.size(), true));
      for (Chains c :
           {greedy_stage_layout(sub_, groups_, out.tokens_per_s, high_, clock, deadline),
            program_stage_layout(sub_, groups_, out.tokens_per_s, high_, steps, kProgramSteps)})
        if (c.tokens_per_s > out.tokens_per_s) out = std::move(c);
    } else if (high_ > 0) {
      StageSweep sweep(sub_, groups_, kMostLaneHosts);
      RoutedLayout layout;
      std::vector<std::vector<size_t>> orders;  // as the sweep numbers the regions
      std::vector<size_t> order = set_;
      do {
        orders.emplace_back();
        for (size_t r : order)
          orders.back().push_back(own_index_.at(r));
      } while (std::next_permutation(order.begin(), order.end()));
      auto reaches = [&](const std::vector<size_t>& own, double width, double F, double noise = 0,
                         std::mt19937_64* rng = nullptr) {
        if (!sweep.run_series(F, layout, own, width, noise, rng)) return false;
        keep_if_better(out, sub_, layout);
        return true;
      };
      for (const std::vector<size_t>& own : orders) {
        if (clock.now_seconds() >= deadline) break;
        for (double width : {1.0, 0.7, 1.5}) {
          double lo = out.tokens_per_s, hi = high_;
          if (reaches(own, width, hi)) break;
          for (int it = 0; it < 30 && hi - lo > 2e-3 * hi; ++it) {
            const double mid = lo > 0 ? (lo + hi) / 2 : hi / 2;
            (reaches(own, width, mid) ? lo : hi) = mid;
          }
        }
      }
      // Perturbed sweeps in every order, each aiming a little above the best so far, with a
      // hand-over of another width. Seeded, so runs repeat.
      std::mt19937_64 rng(23);
      std::uniform_real_distribution<double> u(0, 1);
      for (int it = 0;
           it < kMostSweeps && out.tokens_per_s > 0 && out.tokens_per_s < high_ * (1 - 1e-9) &&
           (it % kSweepsPerRead || clock.now_seconds() < deadline);
           ++it) {
        const double aim = std::min(high_, out.tokens_per_s * (1 + 1e-4 + 0.02 * u(rng)));
        reaches(orders[static_cast<size_t>(it) % orders.size()], 0.6 + 1.2 * u(rng), aim,
                0.01 + 0.3 * u(rng), &rng);
      }
    }
    std::pair<double, RoutedLayout> result{out.tokens_per_s, RoutedLayout(hosts)};
    for (size_t k = 0; k < members_.size(); ++k)
      result.second[members_[k]] = out.layout[k];
    return result;
  }

 private:
  static constexpr double kProgramSteps = 15;  // bisection steps of a region's stage program
  static constexpr int kSweepsPerRead = 16;    // perturbed sweeps between readings of the clock
  static constexpr int kMostSweeps = 30000;    // perturbed sweeps of a set, at most
  std::vector<size_t> set_, members_;
  RoutedInstance sub_;
  std::vector<std::vector<size_t>> groups_;
  double high_ = 0;
  std::map<size_t, size_t> own_index_;  // region of `in` -> region of sub_
};

// Every way of cutting {0, ..., n - 1} into nonempty blocks.
void set_partitions(size_t n, std::vector<std::vector<std::vector<size_t>>>& out) {
  std::vector<std::vector<size_t>> cur;
  std::function<void(size_t)> rec = [&](size_t i) {
    if (i == n) {
      out.push_back(cur);
      return;
    }
    for (size_t b = 0; b < cur.size(); ++b) {  // by index: the recursion grows `cur`
      cur[b].push_back(i);
      rec(i + 1);
      cur[b].pop_back();
    }
    cur.push_back({i});
    rec(i + 1);
    cur.pop_back();
  };
  rec(0);
}

}  // namespace

Chains region_chains_layout(const RoutedInstance& in, const Clock& clock, double deadline) {
  Chains out;
  out.layout.assign(in.hosts.size(), {});
  const std::vector<std::vector<size_t>> regions = routed_regions(in);
  const size_t R = regions.size();
  if (in.layers <= 0 || R < 2) return out;
  // Past kMostChainedRegions, each region alone, side by side.
  std::vector<std::vector<std::vector<size_t>>> partitions;
  if (R > kMostChainedRegions) {
    partitions.emplace_back();
    for (size_t r = 0; r < R; ++r)
      partitions.back().push_back({r});
  } else {
    set_partitions(R, partitions);
  }
  // Each set of regions the cuts use, searched once with an even share of the time left.
  std::vector<std::vector<size_t>> sets;
  for (const auto& blocks : partitions)
    for (const std::vector<size_t>& block : blocks)
      if (std::find(sets.begin(), sets.end(), block) == sets.end()) sets.push_back(block);
  std::map<std::vector<size_t>, std::pair<double, RoutedLayout>> chain;  // by set of regions
  for (size_t k = 0; k < sets.size(); ++k) {
    const double now = clock.now_seconds();
    const double until = now + std::max(0.0, deadline - now) / static_cast<double>(sets.size() - k);
    chain.emplace(sets[k], RegionSet(in, regions, sets[k]).best(in.hosts.size(), clock, until));
  }
  for (const auto& blocks : partitions) {
    RoutedLayout layout(in.hosts.size());
    double sum = 0;
    for (const std::vector<size_t>& block : blocks) {
      const auto& c = chain.at(block);
      sum += c.first;
      for (size_t i = 0; i < in.hosts.size(); ++i)
        if (c.second[i].used()) layout[i] = c.second[i];
    }
    if (sum > out.tokens_per_s) keep_if_better(out, in, layout);
  }
  return out;
}

}  // namespace meshplan
