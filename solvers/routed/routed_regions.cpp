#include "solvers/routed/routed_regions.hpp"

#include <algorithm>
#include <numeric>

#include "solvers/routed/routed_greedy.hpp"
#include "solvers/routed/routed_stage_program.hpp"
#include "solvers/routed/routed_stages.hpp"

namespace meshplan {

std::vector<std::vector<size_t>> routed_regions(const RoutedInstance& in) {
  const size_t n = in.hosts.size();
  std::vector<double> fastest(n, 0);
  for (size_t i = 0; i < n; ++i)
    for (double t : in.hosts[i].table)
      fastest[i] = std::max(fastest[i], t);
  auto fast = [&](size_t i, size_t j) {
    if (!in.has_links()) return true;
    const double need = std::max(fastest[i], fastest[j]);
    return in.link_at(i, j) >= need && in.link_at(j, i) >= need;
  };
  // Each host reached is looked at from the hosts not yet reached only: a fleet on one switch is
  // one region after n link reads, not n^2.
  std::vector<std::vector<size_t>> regions;
  std::vector<size_t> unseen(n);
  std::iota(unseen.begin(), unseen.end(), 0);
  while (!unseen.empty()) {
    regions.emplace_back();
    std::vector<size_t> stack{unseen.front()};
    unseen.erase(unseen.begin());
    while (!stack.empty()) {
      const size_t i = stack.back();
      stack.pop_back();
      regions.back().push_back(i);
      size_t kept = 0;
      for (size_t j : unseen)
        if (fast(i, j))
          stack.push_back(j);
        else
          unseen[kept++] = j;
      unseen.resize(kept);
    }
    std::sort(regions.back().begin(), regions.back().end());
  }
  return regions;
}

Chains regional_layout(const RoutedInstance& in, const Clock& clock, double deadline) {
  Chains out;
  out.layout.assign(in.hosts.size(), {});
  const std::vector<std::vector<size_t>> regions = routed_regions(in);
  if (regions.size() < 2) return out;
  for (size_t r = 0; r < regions.size(); ++r) {
    const std::vector<size_t>& hosts = regions[r];
    RoutedInstance sub;
    sub.layers = in.layers;
    for (size_t i : hosts)
      sub.hosts.push_back(in.hosts[i]);
    sub.links_of(in, hosts);
    // This region's share of the time left.
    const double now = clock.now_seconds();
    const double until =
        now + std::max(0.0, deadline - now) / static_cast<double>(regions.size() - r);
    const auto groups = interchangeable_hosts(sub);
    const double high = routed_upper_bound(sub).tokens_per_s;
    Chains best = best_pipeline(sub, std::vector<bool>(hosts.size(), true));
    Chains g = greedy_stage_layout(sub, groups, best.tokens_per_s, high, clock, until);
    if (g.tokens_per_s > best.tokens_per_s) best = std::move(g);
    Chains p = program_stage_layout(sub, groups, best.tokens_per_s, high, clock, until);
    if (p.tokens_per_s > best.tokens_per_s) best = std::move(p);
    if (best.tokens_per_s <= 0) continue;
    for (size_t k = 0; k < hosts.size(); ++k)
      out.layout[hosts[k]] = best.layout[k];
  }
  out.tokens_per_s = routed_max_flow(in, out.layout).total;
  out.chains = static_cast<int>(regions.size());
  return out;
}

}  // namespace meshplan
