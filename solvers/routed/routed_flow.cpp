#include "solvers/routed/routed_flow.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <queue>

namespace meshplan {
namespace {

// Dinic's algorithm on a small graph with real capacities.
class FlowNetwork {
 public:
  explicit FlowNetwork(size_t nodes) : adj_(nodes) {}
  size_t add(size_t from, size_t to, double cap) {
    adj_[from].push_back(edges_.size());
    edges_.push_back({to, cap, 0});
    adj_[to].push_back(edges_.size());
    edges_.push_back({from, 0, 0});
    return edges_.size() - 2;
  }
  double flow(size_t e) const { return edges_[e].flow; }
  double run(size_t s, size_t t) {
    double total = 0;
    while (levels(s, t)) {
      next_.assign(adj_.size(), 0);
      while (double f = push(s, t, std::numeric_limits<double>::infinity()))
        total += f;
    }
    return total;
  }

 private:
  struct Edge {
    size_t to;
    double cap, flow;
  };
  static constexpr double kEps = 1e-9;
  bool levels(size_t s, size_t t) {
    level_.assign(adj_.size(), -1);
    std::queue<size_t> q;
    level_[s] = 0;
    q.push(s);
    while (!q.empty()) {
      size_t u = q.front();
      q.pop();
      for (size_t e : adj_[u]) {
        const Edge& ed = edges_[e];
        if (level_[ed.to] < 0 && ed.cap - ed.flow > kEps) {
          level_[ed.to] = level_[u] + 1;
          q.push(ed.to);
        }
      }
    }
    return level_[t] >= 0;
  }
  double push(size_t u, size_t t, double limit) {
    if (u == t) return limit;
    for (size_t& k = next_[u]; k < adj_[u].size(); ++k) {
      size_t e = adj_[u][k];
      Edge& ed = edges_[e];
      if (level_[ed.to] != level_[u] + 1 || ed.cap - ed.flow <= kEps) continue;
      double f = push(ed.to, t, std::min(limit, ed.cap - ed.flow));
      if (f > 0) {
        ed.flow += f;
        edges_[e ^ 1].flow -= f;
        return f;
      }
    }
    return 0;
  }
  std::vector<std::vector<size_t>> adj_;
  std::vector<Edge> edges_;
  std::vector<int> level_;
  std::vector<size_t> next_;
};

}  // namespace

double range_capacity(const RoutedInstance& in, size_t i, LayerRange r) {
  const RoutedHost& h = in.hosts[i];
  const int k = r.size();
  if (k <= 0 || static_cast<size_t>(k) > h.table.size()) return 0;
  const bool first = r.start == 0, last = r.end == in.layers;
  const int limit = first && last ? h.max_with_both
                    : first       ? h.max_with_first
                    : last        ? h.max_with_last
                                  : INT_MAX;
  if (k > limit) return 0;
  double t = h.table[static_cast<size_t>(k - 1)];
  if (last && h.head_s > 0) t = 1 / (1 / t + h.head_s);
  return t;
}

RoutedFlow routed_max_flow(const RoutedInstance& in, const RoutedLayout& layout, int cut_at) {
  const size_t n = in.hosts.size();
  // A host exits to the sink when it holds the last layer or, for a prefix, reaches past the cut.
  const int cut = cut_at >= 0 && cut_at < in.layers ? cut_at : in.layers;
  const double inf = std::numeric_limits<double>::infinity();
  // Nodes: source 0, sink 1, host i enters at 2 + 2i and leaves at 3 + 2i (its capacity between).
  FlowNetwork net(2 + 2 * n);
  std::vector<size_t> entry_edge(n, SIZE_MAX), host_edge(n, SIZE_MAX);
  std::vector<std::vector<std::pair<size_t, size_t>>> link_edge(n);  // per host: (to, edge)
  std::vector<double> cap(n, 0);
  for (size_t i = 0; i < n; ++i)
    if (layout[i].used()) cap[i] = range_capacity(in, i, layout[i]);
  for (size_t i = 0; i < n; ++i) {
    const LayerRange r = layout[i];
    if (cap[i] <= 0) continue;
    host_edge[i] = net.add(2 + 2 * i, 3 + 2 * i, cap[i]);
    if (r.start == 0) entry_edge[i] = net.add(0, 2 + 2 * i, inf);
    if (r.end > cut || r.end == in.layers) {
      net.add(3 + 2 * i, 1, inf);
      continue;
    }
    for (size_t j = 0; j < n; ++j) {
      if (j == i || cap[j] <= 0 || layout[j].start != r.end) continue;
      const double c = in.link.empty() ? inf : in.link[i][j];
      if (c > 0) link_edge[i].push_back({j, net.add(3 + 2 * i, 2 + 2 * j, c)});
    }
  }
  RoutedFlow out;
  out.total = net.run(0, 1);
  out.host.assign(n, 0);
  out.entry.assign(n, 0);
  out.out.assign(n, {});
  for (size_t i = 0; i < n; ++i) {
    if (host_edge[i] != SIZE_MAX) out.host[i] = net.flow(host_edge[i]);
    if (entry_edge[i] != SIZE_MAX) out.entry[i] = net.flow(entry_edge[i]);
    for (const auto& [j, edge] : link_edge[i])
      out.out[i].push_back({j, net.flow(edge)});
  }
  return out;
}

double RoutedFlow::link(size_t i, size_t j) const {
  if (i >= out.size()) return 0;
  for (const auto& [to, flow] : out[i])
    if (to == j) return flow;
  return 0;
}

}  // namespace meshplan
