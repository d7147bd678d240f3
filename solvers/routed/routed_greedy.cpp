#include "solvers/routed/routed_greedy.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

#include "solvers/routed/routed_sweep.hpp"

namespace meshplan {
namespace {

constexpr int kNoisySweeps = 30000;  // perturbed sweeps after the bisection, at most
constexpr int kSweepsPerRead = 16;   // perturbed sweeps between two readings of the clock

// Whether some link carries less than some host can: otherwise a lane's intake is what the stage
// before carries, however it is counted.
bool links_can_bind(const RoutedInstance& in) {
  if (!in.has_links()) return false;
  double top = 0;
  for (const RoutedHost& h : in.hosts)
    for (double t : h.table)
      top = std::max(top, t);
  for (size_t i = 0; i < in.hosts.size(); ++i)
    for (size_t j = 0; j < in.hosts.size(); ++j)
      if (i != j && in.link_at(i, j) > 0 && in.link_at(i, j) < top) return true;
  return false;
}

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
  // Stages whose hosts each hold the whole stage, and stages of lanes: neither sweep's result is
  // always the better. Where a link can bind, each also with a lane's intake cut to what the
  // hosts before still hand on (StageSweep's `carried`): counting each link whole for every lane
  // reaches flows across slow links that the layout then does not carry.
  StageSweep whole(in, groups, 1), lanes(in, groups, kMostLaneHosts);
  struct Kind {
    StageSweep* sweep;
    bool carried;
  };
  std::vector<Kind> kinds{{&whole, false}, {&lanes, false}};
  if (links_can_bind(in)) {
    kinds.push_back({&whole, true});
    kinds.push_back({&lanes, true});
  }
  RoutedLayout layout;
  auto reaches = [&](const Kind& kind, double F, double noise = 0, std::mt19937_64* rng = nullptr) {
    kind.sweep->set_carried(kind.carried);
    if (!kind.sweep->run(F, layout, noise, rng)) return false;
    keep_if_better(out, in, layout);
    return true;
  };
  double lo = 0;
  for (const Kind& kind : kinds) {
    if (reaches(kind, high)) return out;
    // The sweep is a heuristic, so reaching is not monotone in F: every layout met is measured.
    // Those that count what is carried reach what they lay out: fewer steps place them.
    double a = std::max(0.0, std::min(low, high)), b = high;
    for (int it = 0; it < (kind.carried ? 12 : 40) && b - a > 1e-6 * b; ++it) {
      const double mid = a > 0 ? (a + b) / 2 : b / 2;
      (reaches(kind, mid) ? a : b) = mid;
    }
    lo = std::max(lo, a);
  }
  // Then sweeps with the stages' measure perturbed, each aiming a little above the best flow so
  // far: a different order of stages often packs the hosts better. Seeded, so runs repeat.
  std::mt19937_64 rng(19);
  for (int it = 0; it < kNoisySweeps && (it % kSweepsPerRead || clock.now_seconds() < deadline);
       ++it) {
    const double base = std::max(out.tokens_per_s, lo);
    if (base <= 0 || base >= high * (1 - 1e-9)) break;
    const double aim =
        std::min(high, base * (1 + std::uniform_real_distribution<double>(1e-4, 0.02)(rng)));
    reaches(kinds[static_cast<size_t>(it) % kinds.size()], aim,
            std::uniform_real_distribution<double>(0.01, 0.3)(rng), &rng);
  }
  return out;
}

int improve_by_moves(const RoutedInstance& in, Chains& c, const Clock& clock, double deadline) {
  RoutedLayout& lay = c.layout;
  const size_t n = in.hosts.size();
  if (lay.size() != n) return 0;
  double best = routed_flow_total(in, lay);
  int moves = 0;
  auto flow = [&](const RoutedLayout& l) { return routed_flow_total(in, l); };
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
