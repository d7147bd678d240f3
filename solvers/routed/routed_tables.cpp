#include "solvers/routed/routed_tables.hpp"

#include <algorithm>
#include <limits>

namespace meshplan {

double with_head(const RoutedHost& h, double t) {
  return h.head_s > 0 ? 1 / (1 / t + h.head_s) : t;
}

std::vector<double> bound_table(const RoutedHost& h, int layers) {
  const size_t L = static_cast<size_t>(std::max(0, layers));
  std::vector<double> t(h.table.begin(), h.table.begin() + std::min(h.table.size(), L));
  if (L > 0 && t.size() == L) {
    if (layers > h.max_with_both)
      t.pop_back();
    else
      t.back() = with_head(h, t.back());
  }
  return t;
}

RoutedInstance link_capped(const RoutedInstance& in) {
  RoutedInstance out = in;
  if (!in.has_links()) return out;
  const double inf = std::numeric_limits<double>::infinity();
  const size_t n = in.hosts.size();
  // A link carries no more than the host at its other end does while holding fewer than all
  // layers (one holding them all passes nothing on).
  std::vector<double> most(n, 0);
  for (size_t i = 0; i < n; ++i) {
    const auto& t = in.hosts[i].table;
    const size_t k = std::min(t.size(), static_cast<size_t>(std::max(0, in.layers - 1)));
    if (k > 0) most[i] = *std::max_element(t.begin(), t.begin() + static_cast<long>(k));
  }
  // Partners visited by what they carry, most first, so that the sums pass a host's best entry
  // after a few of them where the links do not bind (a fleet's switch): no cut, and no n^2 walk.
  std::vector<size_t> by_most(n);
  for (size_t j = 0; j < n; ++j)
    by_most[j] = j;
  std::stable_sort(by_most.begin(), by_most.end(),
                   [&](size_t a, size_t b) { return most[a] > most[b]; });
  for (size_t i = 0; i < n; ++i) {
    RoutedHost& h = out.hosts[i];
    if (h.table.empty()) continue;
    const double top = *std::max_element(h.table.begin(), h.table.end());
    // Sums that pass the table's best entry cut nothing: stop there.
    double in_sum = 0, out_sum = 0;
    for (size_t p = 0; p < n && (in_sum < top || out_sum < top); ++p)
      if (const size_t j = by_most[p]; j != i) {
        in_sum += std::min(in.link_at(j, i), most[j]);
        out_sum += std::min(in.link_at(i, j), most[j]);
      }
    if (in_sum >= top && out_sum >= top) continue;
    // The table value whose head-slowed figure is in_sum, so that the last place is cut no lower.
    const double in_last =
        h.head_s > 0 ? (in_sum * h.head_s < 1 ? 1 / (1 / in_sum - h.head_s) : inf) : in_sum;
    for (size_t k = 1; k <= h.table.size(); ++k) {
      if (static_cast<int>(k) >= in.layers) break;
      const int len = static_cast<int>(k);
      double cap = std::min(in_sum, out_sum);
      if (len <= h.max_with_first) cap = std::max(cap, out_sum);
      if (len <= h.max_with_last) cap = std::max(cap, in_last);
      h.table[k - 1] = std::min(h.table[k - 1], cap);
    }
  }
  return out;
}

}  // namespace meshplan
