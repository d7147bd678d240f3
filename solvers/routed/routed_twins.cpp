#include "solvers/routed/routed_twins.hpp"

#include <algorithm>
#include <limits>

#include "solvers/routed/routed_bounds.hpp"
#include "solvers/routed/routed_regions.hpp"

namespace meshplan {
namespace {

constexpr double kMostFaster = 1.25;   // a variant's table entries over its copy's, at most
constexpr size_t kMostLonger = 2;      // layers a variant holds beyond its copy, at most
constexpr double kMostFasterLink = 4;  // links between two regions planned as their slowest

// Whether host h of `in` is a variant of host g of the same region: no worse in anything, a
// little better in some. (A host of another region reaches its own region's hosts faster than g
// does, which makes it no variant of g.)
bool variant_of(const RoutedInstance& in, const std::vector<size_t>& region, size_t h, size_t g) {
  if (region[h] != region[g]) return false;
  const RoutedHost &x = in.hosts[h], &y = in.hosts[g];
  if (x.table.size() < y.table.size() || x.table.size() > y.table.size() + kMostLonger ||
      y.table.empty() || x.head_s > y.head_s || x.max_with_first < y.max_with_first ||
      x.max_with_last < y.max_with_last || x.max_with_both < y.max_with_both)
    return false;
  for (size_t k = 0; k < y.table.size(); ++k)
    if (x.table[k] < y.table[k] || x.table[k] > y.table[k] * kMostFaster) return false;
  if (in.has_links()) {
    if (in.link_at(h, g) <= 0 || in.link_at(g, h) <= 0) return false;
    for (size_t k = 0; k < in.hosts.size(); ++k) {
      if (k == h || k == g) continue;
      if (in.link_at(h, k) < in.link_at(g, k) || in.link_at(k, h) < in.link_at(k, g)) return false;
    }
  }
  return true;
}

bool same_figures(const RoutedInstance& in, size_t a, size_t b) {
  const RoutedHost &x = in.hosts[a], &y = in.hosts[b];
  if (x.table != y.table || x.head_s != y.head_s || x.max_with_first != y.max_with_first ||
      x.max_with_last != y.max_with_last || x.max_with_both != y.max_with_both)
    return false;
  if (!in.has_links()) return true;
  if (in.link_at(a, b) != in.link_at(b, a)) return false;
  for (size_t k = 0; k < in.hosts.size(); ++k)
    if (k != a && k != b &&
        (in.link_at(a, k) != in.link_at(b, k) || in.link_at(k, a) != in.link_at(k, b)))
      return false;
  return true;
}

}  // namespace

RoutedInstance routed_unbound_links(const RoutedInstance& in, double most_flow) {
  if (in.link.empty()) return in;
  RoutedInstance out = in;
  const size_t n = in.hosts.size();
  std::vector<double> fastest(n, 0);
  for (size_t i = 0; i < n; ++i)
    for (double t : in.hosts[i].table)
      fastest[i] = std::max(fastest[i], t);
  // Nor does one at or above the upper bound: no link carries more than the whole flow.
  const double most = most_flow >= 0 ? most_flow : routed_upper_bound(in).tokens_per_s;
  for (size_t i = 0; i < n; ++i)
    for (size_t j = 0; j < n; ++j)
      if (i != j && out.link[i][j] > 0 &&
          out.link[i][j] >= std::min({fastest[i], fastest[j], most}))
        out.link[i][j] = std::numeric_limits<double>::infinity();
  return out;
}

RoutedInstance routed_without_variants(const RoutedInstance& given, double most_flow) {
  // Links held as the planner holds them (a fleet's) are not rewritten: fleets are planned in
  // shards, and their hosts alike are exact copies already.
  if (given.link.empty() && given.links) return given;
  RoutedInstance in = routed_unbound_links(given, most_flow);
  const size_t n = in.hosts.size();
  // Links from one region to another that differ by at most kMostFasterLink: as the slowest.
  if (!in.link.empty()) {
    const std::vector<std::vector<size_t>> regions = routed_regions(in);
    for (const std::vector<size_t>& from : regions)
      for (const std::vector<size_t>& to : regions) {
        if (&from == &to) continue;
        double low = 0, high = 0;
        for (size_t i : from)
          for (size_t j : to)
            if (const double l = in.link[i][j]; l > 0) {
              low = low > 0 ? std::min(low, l) : l;
              high = std::max(high, l);
            }
        if (low > 0 && high > low && high <= low * kMostFasterLink)
          for (size_t i : from)
            for (size_t j : to)
              if (in.link[i][j] > 0) in.link[i][j] = low;
      }
  }
  std::vector<size_t> region(n, 0);
  {
    const std::vector<std::vector<size_t>> regions = routed_regions(in);
    for (size_t r = 0; r < regions.size(); ++r)
      for (size_t i : regions[r])
        region[i] = r;
  }
  std::vector<bool> copied(n, false);  // made a copy of another host: not copied in turn
  for (size_t h = 0; h < n; ++h) {
    // The host h improves on the most: of those it is a variant of, the one with the best table.
    size_t base = n;
    for (size_t g = 0; g < n; ++g)
      if (g != h && !copied[g] && !same_figures(in, h, g) && variant_of(in, region, h, g) &&
          (base == n || in.hosts[g].table > in.hosts[base].table))
        base = g;
    if (base == n) continue;
    RoutedHost& x = in.hosts[h];
    const RoutedHost& y = in.hosts[base];
    x.table = y.table;
    x.head_s = y.head_s;
    x.max_with_first = y.max_with_first;
    x.max_with_last = y.max_with_last;
    x.max_with_both = y.max_with_both;
    if (!in.link.empty()) {
      for (size_t k = 0; k < n; ++k) {
        if (k == h) continue;
        if (k != base) {
          in.link[h][k] = in.link[base][k];
          in.link[k][h] = in.link[k][base];
        } else {
          in.link[h][base] = in.link[base][h] = std::min(in.link[h][base], in.link[base][h]);
        }
      }
    }
    copied[h] = true;
  }
  return in;
}

}  // namespace meshplan
