#include "solvers/routed/routed_tables.hpp"

#include <algorithm>

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

}  // namespace meshplan
