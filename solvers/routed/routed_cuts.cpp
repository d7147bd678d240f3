#include "solvers/routed/routed_cuts.hpp"

#include <algorithm>
#include <cmath>

#include "solvers/routed/routed_tables.hpp"

namespace meshplan {
namespace {

constexpr int kMostM = 8;      // cover cuts for m = 1..8 (larger m added nothing on Helix's)
constexpr int kMixSteps = 10;  // mixes of the cover cut and the layer work, in tenths

// Whether F meets every mixed cut, for hosts' tables as the bounds see them.
bool meets_cuts(const std::vector<std::vector<double>>& tables, int layers, double F) {
  for (int m = 1; m <= kMostM; ++m)
    for (int step = 0; step < kMixSteps; ++step) {
      const double a = static_cast<double>(step) / kMixSteps;
      double have = 0;
      for (const std::vector<double>& t : tables) {
        double best = 0;
        for (size_t k = 1; k <= t.size(); ++k) {
          const double share = std::min(t[k - 1], F) / F;
          // The floor's argument is nudged up: rounding must never count a host for less.
          const double cover = (std::floor(m * share + 1e-12) + 1) / (m + 1);
          best = std::max(best, static_cast<double>(k) * (a * share + (1 - a) * cover));
        }
        have += best;
      }
      if (have < layers * (1 - 1e-12)) return false;
    }
  return true;
}

}  // namespace

double per_layer_cut_bound(const RoutedInstance& in, double high) {
  if (!(high > 0) || in.layers <= 0) return 0;
  std::vector<std::vector<double>> tables;
  for (const RoutedHost& h : in.hosts)
    tables.push_back(bound_table(h, in.layers));
  // Each cut's left side only grows as F falls (min(t, F) / F does), so the flows meeting all of
  // them are an interval from 0: bisection.
  if (meets_cuts(tables, in.layers, high)) return high;
  double lo = 0, hi = high;
  for (int it = 0; it < 60 && hi - lo > 1e-10 * high; ++it) {
    const double mid = (lo + hi) / 2;
    (meets_cuts(tables, in.layers, mid) ? lo : hi) = mid;
  }
  return hi;  // the bound: every flow above it fails a cut
}

}  // namespace meshplan
