#include "solvers/routed/routed_flow.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>

namespace meshplan {
namespace {

// Dinic's algorithm on a small graph with real capacities. Its arrays are kept between calls
// (one network a thread): the searches measure thousands of layouts, and allocating a graph for
// each was a third of their time. Each node's edges are visited in the order they were added.
class FlowNetwork {
 public:
  void reset(size_t nodes) {
    nodes_ = nodes;
    tail_.clear();
    edges_.clear();
  }
  size_t add(size_t from, size_t to, double cap) {
    tail_.push_back(from);
    edges_.push_back({to, cap, 0});
    tail_.push_back(to);
    edges_.push_back({from, 0, 0});
    return edges_.size() - 2;
  }
  double flow(size_t e) const { return edges_[e].flow; }
  double run(size_t s, size_t t) {
    first_.assign(nodes_ + 1, 0);
    for (size_t u : tail_)
      ++first_[u + 1];
    for (size_t u = 0; u < nodes_; ++u)
      first_[u + 1] += first_[u];
    adj_.resize(edges_.size());
    next_.assign(first_.begin(), first_.end() - 1);
    for (size_t e = 0; e < edges_.size(); ++e)
      adj_[next_[tail_[e]]++] = e;
    double total = 0;
    while (levels(s, t)) {
      next_.assign(first_.begin(), first_.end() - 1);
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
    level_.assign(nodes_, -1);
    queue_.clear();
    level_[s] = 0;
    queue_.push_back(s);
    for (size_t q = 0; q < queue_.size(); ++q) {
      const size_t u = queue_[q];
      for (size_t k = first_[u]; k < first_[u + 1]; ++k) {
        const Edge& ed = edges_[adj_[k]];
        if (level_[ed.to] < 0 && ed.cap - ed.flow > kEps) {
          level_[ed.to] = level_[u] + 1;
          queue_.push_back(ed.to);
        }
      }
    }
    return level_[t] >= 0;
  }
  double push(size_t u, size_t t, double limit) {
    if (u == t) return limit;
    for (size_t& k = next_[u]; k < first_[u + 1]; ++k) {
      size_t e = adj_[k];
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
  size_t nodes_ = 0;
  std::vector<size_t> tail_;  // per edge: the node it leaves
  std::vector<Edge> edges_;
  std::vector<size_t> first_, adj_;  // node u's edges are adj_[first_[u] .. first_[u + 1])
  std::vector<int> level_;
  std::vector<size_t> next_, queue_;
};

// Hosts grouped by a boundary, in host order: those of boundary b are at[first[b] .. first[b+1]).
struct ByBoundary {
  std::vector<size_t> first, at;
  void fill(size_t boundaries, const std::vector<std::pair<size_t, size_t>>& pairs) {
    first.assign(boundaries + 1, 0);
    for (const auto& [b, i] : pairs)
      ++first[b + 1];
    for (size_t b = 0; b < boundaries; ++b)
      first[b + 1] += first[b];
    at.resize(pairs.size());
    std::vector<size_t>& next = scratch;
    next.assign(first.begin(), first.end() - 1);
    for (const auto& [b, i] : pairs)
      at[next[b]++] = i;
  }
  size_t size(size_t b) const { return first[b + 1] - first[b]; }
  const size_t* begin(size_t b) const { return at.data() + first[b]; }
  const size_t* end(size_t b) const { return at.data() + first[b + 1]; }
  std::vector<size_t> scratch;
};

// What one measurement builds, kept between calls on the thread.
struct FlowWork {
  FlowNetwork net;
  std::vector<double> cap;
  std::vector<std::pair<size_t, size_t>> pairs;  // (boundary, host)
  ByBoundary senders, takers;
  std::vector<char> hub;
  std::vector<size_t> node, entry_edge, host_edge, hub_node, to_hub, from_hub;
  std::vector<std::array<size_t, 3>> link_edge;  // (from, to, edge), by from
};

// Builds the network of `layout` in `w` and returns its max flow.
double run_flow(FlowWork& w, const RoutedInstance& in, const RoutedLayout& layout, int cut_at) {
  const size_t n = in.hosts.size();
  const int L = in.layers;
  // A host exits to the sink when it holds the last layer or, for a prefix, reaches past the cut.
  const int cut = cut_at >= 0 && cut_at < L ? cut_at : L;
  const double inf = std::numeric_limits<double>::infinity();
  const size_t B = static_cast<size_t>(L) + 1;
  std::vector<double>& cap = w.cap;
  cap.assign(n, 0);
  // Per boundary: the hosts that pass tokens across it and those that take them.
  w.pairs.clear();
  for (size_t i = 0; i < n; ++i) {
    if (layout[i].used()) cap[i] = range_capacity(in, i, layout[i]);
    if (cap[i] > 0) w.pairs.push_back({static_cast<size_t>(layout[i].start), i});
  }
  w.takers.fill(B, w.pairs);
  w.pairs.clear();
  for (size_t i = 0; i < n; ++i)
    if (cap[i] > 0 && !(layout[i].end > cut || layout[i].end == L))
      w.pairs.push_back({static_cast<size_t>(layout[i].end), i});
  w.senders.fill(B, w.pairs);
  const ByBoundary &senders = w.senders, &takers = w.takers;
  auto link_cap = [&](size_t i, size_t j) { return in.link_at(i, j); };
  // A boundary between many hosts (a fleet on one switch) whose every link carries at least what
  // the smaller of its two ends can: no link binds, so one hub node stands for the pairs, and the
  // flow through it is shared out pair by pair after (each share within both ends, so within the
  // link). Small boundaries keep a link per pair.
  constexpr size_t kHubPairs = 1024;
  w.hub.assign(B, 0);
  size_t hubs = 0;
  for (size_t b = 1; b < B; ++b) {
    if (senders.size(b) * takers.size(b) <= kHubPairs) continue;
    bool loose = true;
    for (const size_t* s = senders.begin(b); s != senders.end(b) && loose; ++s)
      for (const size_t* t = takers.begin(b); t != takers.end(b); ++t) {
        const size_t i = *s, j = *t;
        if (i != j && link_cap(i, j) < std::min(cap[i], cap[j])) {
          loose = false;
          break;
        }
      }
    if (loose) {
      w.hub[b] = 1;
      ++hubs;
    }
  }
  // Nodes: source 0, sink 1, the c-th host holding layers enters at 2 + 2c and leaves at 3 + 2c
  // (its capacity between), then the hubs. Hosts left out have none: a fleet's chain is a few.
  w.node.assign(n, SIZE_MAX);
  size_t held = 0;
  for (size_t i = 0; i < n; ++i)
    if (cap[i] > 0) w.node[i] = held++;
  auto enter = [&](size_t i) { return 2 + 2 * w.node[i]; };
  auto leave = [&](size_t i) { return 3 + 2 * w.node[i]; };
  FlowNetwork& net = w.net;
  net.reset(2 + 2 * held + hubs);
  w.entry_edge.assign(n, SIZE_MAX);
  w.host_edge.assign(n, SIZE_MAX);
  w.hub_node.assign(B, 0);
  w.to_hub.assign(n, SIZE_MAX);
  w.from_hub.assign(n, SIZE_MAX);
  w.link_edge.clear();
  size_t next_hub = 2 + 2 * held;
  for (size_t b = 1; b < B; ++b)
    if (w.hub[b]) w.hub_node[b] = next_hub++;
  for (size_t i = 0; i < n; ++i) {
    if (cap[i] <= 0) continue;
    const LayerRange r = layout[i];
    const size_t start = static_cast<size_t>(r.start), end = static_cast<size_t>(r.end);
    w.host_edge[i] = net.add(enter(i), leave(i), cap[i]);
    if (r.start == 0) w.entry_edge[i] = net.add(0, enter(i), inf);
    if (w.hub[start]) w.from_hub[i] = net.add(w.hub_node[start], enter(i), inf);
    if (r.end > cut || r.end == L) {
      net.add(leave(i), 1, inf);
      continue;
    }
    if (w.hub[end]) {
      w.to_hub[i] = net.add(leave(i), w.hub_node[end], inf);
      continue;
    }
    for (const size_t* t = takers.begin(end); t != takers.end(end); ++t) {
      const size_t j = *t;
      const double c = j == i ? 0 : link_cap(i, j);
      if (c > 0) w.link_edge.push_back({i, j, net.add(leave(i), enter(j), c)});
    }
  }
  return net.run(0, 1);
}

FlowWork& flow_work() {
  thread_local FlowWork w;
  return w;
}

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

double routed_flow_total(const RoutedInstance& in, const RoutedLayout& layout, int cut_at) {
  return run_flow(flow_work(), in, layout, cut_at);
}

RoutedFlow routed_max_flow(const RoutedInstance& in, const RoutedLayout& layout, int cut_at) {
  FlowWork& w = flow_work();
  const size_t n = in.hosts.size();
  RoutedFlow out;
  out.total = run_flow(w, in, layout, cut_at);
  const FlowNetwork& net = w.net;
  out.host.assign(n, 0);
  out.entry.assign(n, 0);
  out.out.assign(n, {});
  for (size_t i = 0; i < n; ++i) {
    if (w.host_edge[i] != SIZE_MAX) out.host[i] = net.flow(w.host_edge[i]);
    if (w.entry_edge[i] != SIZE_MAX) out.entry[i] = net.flow(w.entry_edge[i]);
  }
  for (const auto& [i, j, edge] : w.link_edge)
    out.out[i].push_back({j, net.flow(edge)});
  // Through a hub: senders and takers in host order, each share as large as both have left.
  for (size_t b = 1; b < w.hub.size(); ++b) {
    if (!w.hub[b]) continue;
    const size_t* t = w.takers.begin(b);
    double left = 0;
    for (const size_t* s = w.senders.begin(b); s != w.senders.end(b); ++s) {
      const size_t i = *s;
      double give = net.flow(w.to_hub[i]);
      while (give > 1e-12 && t != w.takers.end(b)) {
        if (left <= 1e-12) left = net.flow(w.from_hub[*t]);
        const double f = std::min(give, left);
        if (f > 1e-12) out.out[i].push_back({*t, f});
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
