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

void RoutedInstance::links_of(const RoutedInstance& whole, const std::vector<size_t>& members) {
  link.clear();
  links.reset();
  message_bytes = whole.message_bytes;
  if (whole.links) {
    links = std::make_shared<const LinkMatrix>(whole.links->subset(members));
  } else if (!whole.link.empty()) {
    for (size_t i : members) {
      link.emplace_back();
      for (size_t j : members)
        link.back().push_back(whole.link[i][j]);
    }
  }
}

RoutedInstance routed_reordered(const RoutedInstance& in, const std::vector<size_t>& order) {
  RoutedInstance out;
  out.layers = in.layers;
  for (size_t a : order)
    out.hosts.push_back(in.hosts[a]);
  out.links_of(in, order);
  return out;
}

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
  const int L = in.layers;
  // A host exits to the sink when it holds the last layer or, for a prefix, reaches past the cut.
  const int cut = cut_at >= 0 && cut_at < L ? cut_at : L;
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<double> cap(n, 0);
  // Per boundary: the hosts that pass tokens across it and those that take them.
  std::vector<std::vector<size_t>> senders(static_cast<size_t>(L) + 1),
      takers(static_cast<size_t>(L) + 1);
  for (size_t i = 0; i < n; ++i) {
    if (layout[i].used()) cap[i] = range_capacity(in, i, layout[i]);
    if (cap[i] <= 0) continue;
    takers[static_cast<size_t>(layout[i].start)].push_back(i);
    if (!(layout[i].end > cut || layout[i].end == L))
      senders[static_cast<size_t>(layout[i].end)].push_back(i);
  }
  auto link_cap = [&](size_t i, size_t j) { return in.link_at(i, j); };
  // A boundary between many hosts (a fleet on one switch) whose every link carries at least what
  // the smaller of its two ends can: no link binds, so one hub node stands for the pairs, and the
  // flow through it is shared out pair by pair after (each share within both ends, so within the
  // link). Small boundaries keep a link per pair.
  constexpr size_t kHubPairs = 1024;
  std::vector<bool> hub(static_cast<size_t>(L) + 1, false);
  size_t hubs = 0;
  for (size_t b = 1; b < hub.size(); ++b) {
    if (senders[b].size() * takers[b].size() <= kHubPairs) continue;
    bool loose = true;
    for (size_t k = 0; k < senders[b].size() && loose; ++k)
      for (size_t j : takers[b]) {
        const size_t i = senders[b][k];
        if (i != j && link_cap(i, j) < std::min(cap[i], cap[j])) {
          loose = false;
          break;
        }
      }
    if (loose) {
      hub[b] = true;
      ++hubs;
    }
  }
  // Nodes: source 0, sink 1, the c-th host holding layers enters at 2 + 2c and leaves at 3 + 2c
  // (its capacity between), then the hubs. Hosts left out have none: a fleet's chain is a few.
  std::vector<size_t> node(n, SIZE_MAX);
  size_t held = 0;
  for (size_t i = 0; i < n; ++i)
    if (cap[i] > 0) node[i] = held++;
  auto enter = [&](size_t i) { return 2 + 2 * node[i]; };
  auto leave = [&](size_t i) { return 3 + 2 * node[i]; };
  FlowNetwork net(2 + 2 * held + hubs);
  std::vector<size_t> entry_edge(n, SIZE_MAX), host_edge(n, SIZE_MAX), hub_node(hub.size(), 0);
  std::vector<std::vector<std::pair<size_t, size_t>>> link_edge(n);  // per host: (to, edge)
  std::vector<size_t> to_hub(n, SIZE_MAX), from_hub(n, SIZE_MAX);
  size_t next_hub = 2 + 2 * held;
  for (size_t b = 1; b < hub.size(); ++b)
    if (hub[b]) hub_node[b] = next_hub++;
  for (size_t i = 0; i < n; ++i) {
    if (cap[i] <= 0) continue;
    const LayerRange r = layout[i];
    host_edge[i] = net.add(enter(i), leave(i), cap[i]);
    if (r.start == 0) entry_edge[i] = net.add(0, enter(i), inf);
    if (hub[static_cast<size_t>(r.start)]) from_hub[i] = net.add(hub_node[r.start], enter(i), inf);
    if (r.end > cut || r.end == L) {
      net.add(leave(i), 1, inf);
      continue;
    }
    if (hub[static_cast<size_t>(r.end)]) {
      to_hub[i] = net.add(leave(i), hub_node[r.end], inf);
      continue;
    }
    for (size_t j : takers[static_cast<size_t>(r.end)]) {
      const double c = j == i ? 0 : link_cap(i, j);
      if (c > 0) link_edge[i].push_back({j, net.add(leave(i), enter(j), c)});
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
  // Through a hub: senders and takers in host order, each share as large as both have left.
  for (size_t b = 1; b < hub.size(); ++b) {
    if (!hub[b]) continue;
    size_t t = 0;
    double left = 0;
    for (size_t i : senders[b]) {
      double give = net.flow(to_hub[i]);
      while (give > 1e-12 && t < takers[b].size()) {
        if (left <= 1e-12) left = net.flow(from_hub[takers[b][t]]);
        const double f = std::min(give, left);
        if (f > 1e-12) out.out[i].push_back({takers[b][t], f});
        give -= f;
        left -= f;
        if (left <= 1e-12) ++t, left = 0;
      }
    }
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
