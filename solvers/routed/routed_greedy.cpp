#include "solvers/routed/routed_greedy.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

namespace meshplan {
namespace {

constexpr int kNoisySweeps = 3000;  // perturbed sweeps after the bisection, at most

// One sweep from the first layer at a target flow F.
class Sweep {
 public:
  Sweep(const RoutedInstance& in, const std::vector<std::vector<size_t>>& groups)
      : in_(in), groups_(groups) {
    for (const std::vector<size_t>& g : groups) {
      tables_.push_back(bound_table(in.hosts[g.front()], in.layers));
      longest_ = std::max(longest_, static_cast<int>(tables_.back().size()));
    }
  }

  // Fills `layout` and returns true when the stages reach the last layer. With `noise` > 0 each
  // stage's measure is scaled by a factor in [1, 1 + noise) drawn from `rng`.
  bool run(double F, RoutedLayout& layout, double noise = 0, std::mt19937_64* rng = nullptr) {
    const size_t G = groups_.size();
    work_.assign(G, 0);
    used_.assign(G, 0);
    double left = 0;  // layer work of the unused hosts at F
    for (size_t g = 0; g < G; ++g) {
      for (size_t k = 1; k <= tables_[g].size(); ++k)
        work_[g] = std::max(work_[g], static_cast<double>(k) * std::min(tables_[g][k - 1], F));
      left += static_cast<double>(groups_[g].size()) * work_[g];
    }
    layout.assign(in_.hosts.size(), {});
    prev_.clear();
    for (int p = 0; p < in_.layers;) {
      const int rest = in_.layers - p;
      // What the links from the stage before carry into each group's next host.
      inflow_.assign(G, std::numeric_limits<double>::infinity());
      if (!prev_.empty() && in_.has_links())
        for (size_t g = 0; g < G; ++g) {
          if (used_[g] >= groups_[g].size()) continue;
          inflow_[g] = 0;
          for (size_t i : prev_)
            inflow_[g] += in_.link_at(i, groups_[g][used_[g]]);
        }
      double best_eff = 0, best_cost = 0;
      int best_len = 0;
      for (int l = 1; l <= std::min(rest, longest_); ++l) {
        const double cost = cheapest_cover(F, p, l);
        // The stage must leave enough layer work for the layers after it.
        if (cost <= 0 || left - cost < (rest - l) * F * (1 - 1e-12)) continue;
        double eff = l * F / cost;
        if (noise > 0 && rng) eff *= 1 + noise * std::uniform_real_distribution<double>(0, 1)(*rng);
        if (eff > best_eff * (1 + 1e-12)) {
          best_eff = eff;
          best_cost = cost;
          best_len = l;
          best_take_ = take_;
        }
      }
      if (best_len == 0) return false;
      prev_.clear();
      for (size_t g = 0; g < G; ++g)
        for (int k = 0; k < best_take_[g]; ++k) {
          prev_.push_back(groups_[g][used_[g]]);
          layout[groups_[g][used_[g]++]] = {p, p + best_len};
        }
      left -= best_cost;
      p += best_len;
    }
    return true;
  }

 private:
  // The least layer work of unused hosts whose capacities for [p, p + l) sum to F: hosts are added
  // by capacity per work while one alone cannot close the gap; each step also tries closing it
  // with the cheapest host that can. 0 when no set reaches F. The hosts go to take_. A host counts
  // at most what its links from the previous stage's hosts carry, so a slow link is crossed only
  // by a stage wide enough to carry F over it (hosts of a group are linked alike).
  double cheapest_cover(double F, int p, int l) {
    const size_t G = groups_.size();
    cap_.assign(G, 0);
    cost_.assign(G, 0);
    for (size_t g = 0; g < G; ++g) {
      if (used_[g] >= groups_[g].size()) continue;
      cap_[g] = std::min(range_capacity(in_, groups_[g][used_[g]], {p, p + l}), inflow_[g]);
      cost_[g] = std::max(work_[g], l * std::min(cap_[g], F));
    }
    cur_.assign(G, 0);
    take_.assign(G, 0);
    double need = F, cost = 0, best = std::numeric_limits<double>::infinity();
    auto free = [&](size_t g) { return cap_[g] > 0 && used_[g] + cur_[g] < groups_[g].size(); };
    for (;;) {
      size_t close = G, add = G;
      for (size_t g = 0; g < G; ++g) {
        if (!free(g)) continue;
        // On a tie (the same kind in two regions) the host the stage before reaches faster.
        if (cap_[g] >= need * (1 - 1e-12)) {
          if (close == G || cost_[g] < cost_[close] ||
              (cost_[g] == cost_[close] && inflow_[g] > inflow_[close]))
            close = g;
        } else if (add == G || cap_[g] * cost_[add] > cap_[add] * cost_[g] ||
                   (cap_[g] * cost_[add] == cap_[add] * cost_[g] && inflow_[g] > inflow_[add])) {
          add = g;
        }
      }
      if (close != G && cost + cost_[close] < best) {
        best = cost + cost_[close];
        take_ = cur_;
        ++take_[close];
      }
      if (add == G || cost + cost_[add] >= best) break;
      ++cur_[add];
      need -= cap_[add];
      cost += cost_[add];
    }
    return std::isfinite(best) ? best : 0;
  }

  const RoutedInstance& in_;
  const std::vector<std::vector<size_t>>& groups_;
  std::vector<std::vector<double>> tables_;
  int longest_ = 0;
  std::vector<double> work_, cap_, cost_;
  std::vector<size_t> used_;
  std::vector<size_t> prev_;    // the hosts of the stage before
  std::vector<double> inflow_;  // per group: what links from them carry into its next host
  std::vector<int> cur_, take_, best_take_;
};

std::vector<int> boundaries(const RoutedInstance& in, const RoutedLayout& layout) {
  std::vector<int> b{0, in.layers};
  for (const LayerRange& r : layout)
    if (r.used()) {
      b.push_back(r.start);
      b.push_back(r.end);
    }
  std::sort(b.begin(), b.end());
  b.erase(std::unique(b.begin(), b.end()), b.end());
  return b;
}

}  // namespace

Chains greedy_stage_layout(const RoutedInstance& in, const std::vector<std::vector<size_t>>& groups,
                           double low, double high, const Clock& clock, double deadline) {
  Chains out;
  out.layout.assign(in.hosts.size(), {});
  if (in.layers <= 0 || groups.empty() || !(high > 0)) return out;
  Sweep sweep(in, groups);
  RoutedLayout layout;
  auto reaches = [&](double F, double noise = 0, std::mt19937_64* rng = nullptr) {
    if (!sweep.run(F, layout, noise, rng)) return false;
    keep_if_better(out, in, layout);
    return true;
  };
  if (reaches(high)) return out;
  // The sweep is a heuristic, so reaching is not monotone in F: every layout met is measured.
  double lo = std::max(0.0, std::min(low, high)), hi = high;
  for (int it = 0; it < 40 && hi - lo > 1e-6 * hi; ++it) {
    const double mid = lo > 0 ? (lo + hi) / 2 : hi / 2;
    (reaches(mid) ? lo : hi) = mid;
  }
  // Then sweeps with the stages' measure perturbed, each aiming a little above the best flow so
  // far: a different order of stages often packs the hosts better. Seeded, so runs repeat.
  std::mt19937_64 rng(19);
  for (int it = 0; it < kNoisySweeps && clock.now_seconds() < deadline; ++it) {
    const double base = std::max(out.tokens_per_s, lo);
    if (base <= 0 || base >= high * (1 - 1e-9)) break;
    const double aim =
        std::min(high, base * (1 + std::uniform_real_distribution<double>(1e-4, 0.02)(rng)));
    reaches(aim, std::uniform_real_distribution<double>(0.01, 0.3)(rng), &rng);
  }
  return out;
}

int improve_by_moves(const RoutedInstance& in, Chains& c, const Clock& clock, double deadline) {
  RoutedLayout& lay = c.layout;
  const size_t n = in.hosts.size();
  if (lay.size() != n) return 0;
  double best = routed_max_flow(in, lay).total;
  int moves = 0;
  auto flow = [&](const RoutedLayout& l) { return routed_max_flow(in, l).total; };
  for (bool improved = true; improved && clock.now_seconds() < deadline;) {
    improved = false;
    std::vector<int> bounds = boundaries(in, lay);
    // One host at a time: the best range between two boundaries (at most four stages long), or
    // none.
    for (size_t h = 0; h < n && clock.now_seconds() < deadline; ++h) {
      const LayerRange orig = lay[h];
      LayerRange pick = orig;
      double pick_f = best;
      for (size_t i = 0; i < bounds.size(); ++i)
        for (size_t j = i + 1; j < bounds.size() && j <= i + 4; ++j) {
          const LayerRange r{bounds[i], bounds[j]};
          if (r == orig || range_capacity(in, h, r) <= 0) continue;
          lay[h] = r;
          if (const double f = flow(lay); f > pick_f * kRoutedBetter) {
            pick = r;
            pick_f = f;
          }
        }
      if (orig.used()) {
        lay[h] = {};
        if (const double f = flow(lay); f > pick_f * kRoutedBetter) {
          pick = {};
          pick_f = f;
        }
      }
      lay[h] = pick;
      if (!(pick == orig)) {
        best = pick_f;
        ++moves;
        improved = true;
        bounds = boundaries(in, lay);
      }
    }
    // A boundary by one layer, with every range that starts or ends on it.
    for (size_t b = 1; b + 1 < bounds.size() && clock.now_seconds() < deadline; ++b)
      for (int d : {-1, 1}) {
        RoutedLayout trial = lay;
        bool ok = true;
        for (size_t h = 0; h < n && ok; ++h) {
          LayerRange& r = trial[h];
          if (!r.used()) continue;
          if (r.end == bounds[b]) r.end += d;
          if (r.start == bounds[b]) r.start += d;
          ok = r.used() && range_capacity(in, h, r) > 0;
        }
        if (!ok) continue;
        if (const double f = flow(trial); f > best * kRoutedBetter) {
          lay = trial;
          best = f;
          ++moves;
          improved = true;
          bounds = boundaries(in, lay);
          break;
        }
      }
  }
  c.tokens_per_s = best;
  return moves;
}

}  // namespace meshplan
