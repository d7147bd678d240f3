#include "solvers/routed/routed_shards.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <tuple>

namespace meshplan {
namespace {

// Hosts equal in everything a layout reads of them, names aside, get one number.
std::vector<int> host_kinds(const RoutedInstance& in) {
  using Kind = std::tuple<std::vector<double>, double, int, int, int>;
  std::map<Kind, int> kinds;
  std::vector<int> out;
  for (const RoutedHost& h : in.hosts) {
    Kind k{h.table, h.head_s, h.max_with_first, h.max_with_last, h.max_with_both};
    out.push_back(kinds.emplace(k, static_cast<int>(kinds.size())).first->second);
  }
  return out;
}

// For each shard, the first shard alike (the same kinds in order, the same links among them).
std::vector<size_t> shards_alike(const RoutedInstance& in,
                                 const std::vector<std::vector<size_t>>& shards) {
  const std::vector<int> kind = host_kinds(in);
  std::map<std::pair<std::vector<int>, std::vector<double>>, size_t> first_of;
  std::vector<size_t> like(shards.size());
  for (size_t s = 0; s < shards.size(); ++s) {
    std::pair<std::vector<int>, std::vector<double>> key;
    for (size_t i : shards[s])
      key.first.push_back(kind[i]);
    if (in.has_links())
      for (size_t i : shards[s])
        for (size_t j : shards[s])
          if (i != j) key.second.push_back(in.link_at(i, j));
    like[s] = first_of.emplace(std::move(key), s).first->second;
  }
  return like;
}

size_t count_unlike(const std::vector<size_t>& like) {
  size_t n = 0;
  for (size_t s = 0; s < like.size(); ++s)
    n += like[s] == s;
  return n;
}

}  // namespace

size_t routed_unlike_shards(const RoutedInstance& in) {
  if (in.hosts.size() <= kRoutedShardHosts) return 1;
  return count_unlike(shards_alike(in, routed_shards(in)));
}

RoutedOptions routed_shard_options(const RoutedOptions& options, size_t unlike) {
  RoutedOptions each = options;
  each.time_limit_s = options.time_limit_s / static_cast<double>(std::max<size_t>(unlike, 1));
  each.covers = false;
  return each;
}

std::vector<std::vector<size_t>> routed_shards(const RoutedInstance& in) {
  const size_t n = in.hosts.size();
  const std::vector<size_t> order = routed_canonical_order(in);
  if (n <= kRoutedShardHosts) return {order};
  // Shard s holds the hosts at canonical places s, s + m, s + 2m, ...
  const size_t m = (n + kRoutedShardSize - 1) / kRoutedShardSize;
  std::vector<std::vector<size_t>> shards(m);
  for (size_t p = 0; p < n; ++p)
    shards[p % m].push_back(order[p]);
  return shards;
}

RoutedSolution solve_routed_fleet(const RoutedInstance& in, const RoutedOptions& options,
                                  const RoutedSolution* first_shard) {
  const size_t n = in.hosts.size();
  if (n <= kRoutedShardHosts) return first_shard ? *first_shard : solve_routed(in, options);
  SteadyClock steady;
  const Clock& clock = options.clock ? *options.clock : steady;
  const double started = clock.now_seconds();
  double mark = started;
  RoutedSolution out;
  auto lap = [&](const char* name) {
    const double now = clock.now_seconds();
    out.phases.push_back({name, now - mark});
    mark = now;
  };
  out.bound = routed_upper_bound(in);
  lap("upper bound");
  out.pipeline = best_pipeline(in, std::vector<bool>(n, true));
  lap("single pipeline");

  const std::vector<std::vector<size_t>> shards = routed_shards(in);
  const size_t m = shards.size();
  const std::vector<size_t> like = shards_alike(in, shards);
  const size_t unlike = count_unlike(like);
  const RoutedOptions each = routed_shard_options(options, unlike);
  std::map<size_t, RoutedSolution> searched;
  for (size_t s = 0; s < m; ++s) {
    if (like[s] != s) continue;
    RoutedSolution r =
        s == 0 && first_shard ? *first_shard : solve_routed(routed_reordered(in, shards[s]), each);
    out.nodes += r.nodes;
    out.groups = std::max(out.groups, r.groups);
    searched.emplace(s, std::move(r));
  }
  lap("shards");
  // The layouts, and each shard's disjoint replicas (greedy over the whole fleet would take a
  // pipeline at a time from thousands of hosts), side by side.
  out.layout.assign(n, {});
  out.replicas.layout.assign(n, {});
  for (size_t s = 0; s < m; ++s) {
    const RoutedSolution& r = searched.at(like[s]);
    for (size_t p = 0; p < shards[s].size(); ++p) {
      out.layout[shards[s][p]] = r.layout[p];
      out.replicas.layout[shards[s][p]] = r.replicas.layout[p];
    }
    out.replicas.chains += r.replicas.chains;
  }
  out.flow = routed_max_flow(in, out.layout);
  out.replicas.tokens_per_s = routed_flow_total(in, out.replicas.layout);
  out.shards = m;
  // A layout that meets the bound is optimal whatever found it; otherwise the gap is the fleet's.
  out.optimal = out.flow.total >= out.bound.tokens_per_s * (1 - 1e-9);
  out.solve_s = clock.now_seconds() - started;
  out.proof =
      out.optimal
          ? "meets the upper bound"
          : fmt::format(
                "{} hosts searched as {} shards of up to {} ({} unlike, each within its share of "
                "the work budget, {} partial layouts in all); the layouts side by side are within "
                "{:.3g} % of the fleet's upper bound",
                n, m, kRoutedShardSize, unlike, out.nodes,
                out.flow.total > 0 ? (out.bound.tokens_per_s / out.flow.total - 1) * 100 : 100.0);
  lap("fleet flow");
  return out;
}

}  // namespace meshplan
