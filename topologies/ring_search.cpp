#include "topologies/ring_search.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>

namespace meshplan {
namespace {

using Adj = std::vector<std::vector<int>>;

Adj normalize(const Adjacency& graph) {
  const size_t n = graph.size();
  Adj g(n);
  for (size_t v = 0; v < n; ++v) {
    for (size_t u : graph[v]) {
      if (u == v || u >= n) continue;
      g[v].push_back(static_cast<int>(u));
      g[u].push_back(static_cast<int>(v));
    }
  }
  for (auto& nb : g) {
    std::sort(nb.begin(), nb.end());
    nb.erase(std::unique(nb.begin(), nb.end()), nb.end());
  }
  return g;
}

// Cut vertices of the subgraph induced by the alive vertices (plus an optional extra edge x-y),
// by an iterative Tarjan DFS. pieces(u) is how many parts u's own component falls into when u
// is removed (0 when u is alone, 1 when it is not a cut vertex).
class CutFinder {
 public:
  explicit CutFinder(const Adj& g)
      : g_(g),
        disc_(g.size()),
        low_(g.size()),
        pieces_(g.size()),
        next_(g.size()),
        parent_(g.size()) {
    stack_.reserve(g.size());
  }

  int run(const std::vector<char>& alive, int x = -1, int y = -1) {
    const int n = static_cast<int>(g_.size());
    std::fill(disc_.begin(), disc_.end(), -1);
    int time = 0, components = 0;
    for (int s = 0; s < n; ++s) {
      if (!alive[s] || disc_[s] >= 0) continue;
      ++components;
      enter(s, -1, time, 0);
      while (!stack_.empty()) {
        int u = stack_.back();
        int w = next_neighbour(u, alive, x, y);
        if (w >= 0) {
          if (disc_[w] < 0)
            enter(w, u, time, 1);
          else
            low_[u] = std::min(low_[u], disc_[w]);
          continue;
        }
        stack_.pop_back();
        int p = parent_[u];
        if (p < 0) continue;
        low_[p] = std::min(low_[p], low_[u]);
        if (p == s || low_[u] >= disc_[p]) ++pieces_[p];
      }
    }
    return components;
  }

  int pieces(int u) const { return pieces_[u]; }

 private:
  void enter(int v, int parent, int& time, int pieces) {
    disc_[v] = low_[v] = time++;
    pieces_[v] = pieces;
    next_[v] = 0;
    parent_[v] = parent;
    stack_.push_back(v);
  }

  int next_neighbour(int u, const std::vector<char>& alive, int x, int y) {
    const auto& nb = g_[u];
    while (next_[u] < nb.size()) {
      int w = nb[next_[u]++];
      if (alive[w]) return w;
    }
    if (next_[u] == nb.size()) {
      ++next_[u];
      if (u == x && y >= 0 && alive[y]) return y;
      if (u == y && x >= 0 && alive[x]) return x;
    }
    return -1;
  }

  const Adj& g_;
  std::vector<int> disc_, low_, pieces_;
  std::vector<size_t> next_;
  std::vector<int> parent_, stack_;
};

// Two-colouring of the alive vertices; false when an odd cycle exists. counts[c] = vertices of
// colour c.
bool two_colour(const Adj& g, const std::vector<char>& alive, std::vector<int>& colour,
                std::vector<int>& queue, int counts[2]) {
  std::fill(colour.begin(), colour.end(), -1);
  counts[0] = counts[1] = 0;
  for (size_t s = 0; s < g.size(); ++s) {
    if (!alive[s] || colour[s] >= 0) continue;
    colour[s] = 0;
    queue.assign(1, static_cast<int>(s));
    for (size_t head = 0; head < queue.size(); ++head) {
      int u = queue[head];
      ++counts[colour[u]];
      for (int w : g[u]) {
        if (!alive[w]) continue;
        if (colour[w] < 0) {
          colour[w] = 1 - colour[u];
          queue.push_back(w);
        } else if (colour[w] == colour[u]) {
          return false;
        }
      }
    }
  }
  return true;
}

// Necessary conditions checked once on the whole graph; returns the reason it has no ring, or "".
std::string root_obstruction(const Adj& g) {
  const int n = static_cast<int>(g.size());
  for (const auto& nb : g)
    if (nb.size() < 2) return "degree";
  // Edges forced by vertices of degree 2: no vertex may have three, and they may not close a
  // cycle that leaves vertices out.
  std::vector<int> forced(n, 0), set(n);
  std::iota(set.begin(), set.end(), 0);
  auto find = [&](int v) {
    while (set[v] != v)
      v = set[v] = set[set[v]];
    return v;
  };
  std::vector<std::pair<int, int>> edges;
  for (int v = 0; v < n; ++v) {
    if (g[v].size() != 2) continue;
    for (int u : g[v])
      edges.emplace_back(std::min(u, v), std::max(u, v));
  }
  std::sort(edges.begin(), edges.end());
  edges.erase(std::unique(edges.begin(), edges.end()), edges.end());
  for (auto [a, b] : edges) {
    if (++forced[a] > 2 || ++forced[b] > 2) return "forced-edges";
    int ra = find(a), rb = find(b);
    if (ra == rb && static_cast<int>(edges.size()) != n) return "forced-edges";
    set[ra] = rb;
  }
  std::vector<char> alive(n, 1);
  CutFinder cuts(g);
  if (cuts.run(alive) != 1) return "cut-vertex";
  for (int u = 0; u < n; ++u)
    if (cuts.pieces(u) > 1) return "cut-vertex";
  std::vector<int> colour(n), queue;
  int counts[2];
  if (two_colour(g, alive, colour, queue, counts) && counts[0] != counts[1]) return "bipartite";
  // A ring survives the removal of any k vertices in at most k pieces (1-toughness), for k = 2, 3.
  if (n <= 128) {
    for (int v = 0; v < n; ++v) {
      alive[v] = 0;
      int base = cuts.run(alive);
      for (int u = 0; u < n; ++u)
        if (alive[u] && base - 1 + cuts.pieces(u) > 2) return "separator";
      for (int w = v + 1; w < n; ++w) {
        alive[w] = 0;
        int c = cuts.run(alive);
        if (c > 2) return "separator";
        for (int u = 0; u < n; ++u)
          if (alive[u] && c - 1 + cuts.pieces(u) > 3) return "separator";
        alive[w] = 1;
      }
      alive[v] = 1;
    }
  }
  return "";
}

class Searcher {
 public:
  Searcher(const Adj& g, RingOrder order, RingSearchStats* stats)
      : g_(g),
        n_(static_cast<int>(g.size())),
        order_(order),
        stats_(stats),
        on_path_(g.size(), 0),
        alive_(g.size(), 1),
        avail_(g.size()),
        colour_(g.size()),
        need_(g.size()),
        set_(g.size()),
        cuts_(g) {
    for (int v = 0; v < n_; ++v)
      avail_[v] = static_cast<int>(g[v].size());
  }

  std::optional<std::vector<size_t>> run() {
    path_.push_back(0);
    on_path_[0] = 1;
    if (!extend(0)) return std::nullopt;
    return std::vector<size_t>(path_.begin(), path_.end());
  }

 private:
  bool adjacent(int a, int b) const { return std::binary_search(g_[a].begin(), g_[a].end(), b); }

  // What is left (unvisited vertices, the current end and the start) must still admit a path
  // from the end back to the start through all of it.
  bool feasible(int cur) {
    int unvisited_to_start = 0;
    for (int v : g_[0])
      if (!on_path_[v] && avail_[v] == 2) ++unvisited_to_start;
    if (unvisited_to_start > (path_.size() >= 2 ? 1 : 2)) return false;
    int alive_count = n_ - static_cast<int>(path_.size()) + (cur == 0 ? 1 : 2);
    if (cur != 0 && !forced_edges_ok(cur, alive_count)) return false;
    if (alive_count >= 3) {
      if (cuts_.run(alive_, cur, 0) != 1) return false;
      for (int v = 0; v < n_; ++v)
        if (alive_[v] && cuts_.pieces(v) > 1) return false;
    }
    int counts[2];
    if (two_colour(g_, alive_, colour_, queue_, counts)) {
      int mine = counts[colour_[cur]], other = counts[1 - colour_[cur]];
      bool same = cur == 0 || colour_[cur] == colour_[0];
      if (cur == 0 ? mine != other : (same ? mine != other + 1 : mine != other)) return false;
    }
    return true;
  }

  // What is left, with the path contracted into one edge cur-start, must take a cycle through
  // all of it: a vertex with two edges left needs both, so no vertex may need three and the
  // needed edges may not close a cycle early.
  bool forced_edges_ok(int cur, int alive_count) {
    int edges = 0;
    auto find = [&](int v) {
      while (set_[v] != v)
        v = set_[v] = set_[set_[v]];
      return v;
    };
    auto force = [&](int a, int b) {
      if (++need_[a] > 2 || ++need_[b] > 2) return false;
      ++edges;
      int ra = find(a), rb = find(b);
      if (ra == rb) return edges == alive_count;
      set_[ra] = rb;
      return true;
    };
    // Degree in the contracted graph: unvisited neighbours, plus the path edge for its two ends.
    auto degree = [&](int v) {
      return v == cur || v == 0 ? unvisited_neighbours(v) + 1 : avail_[v];
    };
    for (int v = 0; v < n_; ++v) {
      if (!alive_[v]) continue;
      need_[v] = 0;
      set_[v] = v;
    }
    if (!force(cur, 0)) return false;
    for (int v = 0; v < n_; ++v) {
      if (!alive_[v] || degree(v) != 2 || v == cur || v == 0) continue;
      for (int u : g_[v]) {
        if (!alive_[u]) continue;
        if (degree(u) == 2 && u != cur && u != 0 && u < v)
          continue;  // forced from u's side already
        if (!force(std::min(u, v), std::max(u, v))) return false;
      }
    }
    // The path's ends with a single unvisited neighbour must take it.
    for (int end : {cur, 0}) {
      if (degree(end) != 2) continue;
      for (int u : g_[end])
        if (!on_path_[u] && degree(u) != 2 && !force(std::min(u, end), std::max(u, end)))
          return false;
    }
    return true;
  }

  int unvisited_neighbours(int v) const {
    int n = 0;
    for (int u : g_[v])
      n += !on_path_[u];
    return n;
  }

  bool extend(int cur) {
    if (stats_) ++stats_->nodes;
    if (static_cast<int>(path_.size()) == n_) return adjacent(cur, 0);
    if (!feasible(cur)) return false;
    std::vector<int> next;
    int forced = -1, forced_count = 0;
    for (int u : g_[cur]) {
      if (on_path_[u]) continue;
      next.push_back(u);
      if (avail_[u] == 2) {
        forced = u;
        ++forced_count;
      }
    }
    // A neighbour with only two options left must come next, except at the start, which has
    // two neighbours on the ring: there two such vertices are its two ends, one is still free.
    if (cur == 0) {
      if (forced_count > 2) return false;
      if (forced_count < 2)
        forced = -1;
      else
        forced = *std::find_if(next.begin(), next.end(), [&](int u) { return avail_[u] == 2; });
    } else if (forced_count > 1) {
      return false;
    }
    if (forced >= 0)
      next.assign(1, forced);
    else if (order_ == RingOrder::kFewestOptions)
      std::stable_sort(next.begin(), next.end(),
                       [&](int a, int b) { return avail_[a] < avail_[b]; });
    for (int u : next) {
      bool ok = true;
      if (cur != 0) {
        alive_[cur] = 0;
        for (int x : g_[cur]) {
          --avail_[x];
          if (!on_path_[x] && x != u && avail_[x] < 2) ok = false;
        }
      }
      on_path_[u] = 1;
      path_.push_back(u);
      if (ok && extend(u)) return true;
      path_.pop_back();
      on_path_[u] = 0;
      if (cur != 0) {
        alive_[cur] = 1;
        for (int x : g_[cur])
          ++avail_[x];
      }
    }
    return false;
  }

  const Adj& g_;
  int n_;
  RingOrder order_;
  RingSearchStats* stats_;
  std::vector<char> on_path_;  // on the path so far
  std::vector<char> alive_;    // not an interior vertex of the path
  std::vector<int> avail_;     // neighbours that are not interior vertices of the path
  std::vector<int> path_, colour_, queue_, need_, set_;
  CutFinder cuts_;
};

}  // namespace

RingOrder default_ring_order(size_t n) {
  return n <= 16 ? RingOrder::kLowestFirst : RingOrder::kFewestOptions;
}

std::optional<std::vector<size_t>> find_ring(const Adjacency& graph, RingSearchStats* stats,
                                             RingOrder order) {
  RingSearchStats local;
  RingSearchStats& s = stats ? *stats : local;
  s = RingSearchStats{};
  Adj g = normalize(graph);
  const size_t n = g.size();
  s.decided_by = "trivial";
  if (n == 0) return std::nullopt;
  if (n == 1) return std::vector<size_t>{0};
  if (n == 2) {
    if (g[0].empty()) return std::nullopt;
    return std::vector<size_t>{0, 1};
  }
  std::string reason = root_obstruction(g);
  if (!reason.empty()) {
    s.decided_by = reason;
    return std::nullopt;
  }
  s.decided_by = "search";
  return Searcher(g, order == RingOrder::kAuto ? default_ring_order(n) : order, &s).run();
}

bool has_ring_held_karp(const Adjacency& graph) {
  Adj g = normalize(graph);
  const size_t n = g.size();
  if (n > 20) throw std::invalid_argument("has_ring_held_karp: at most 20 vertices");
  if (n <= 2) return find_ring(graph).has_value();
  // reach[mask] = set of end vertices v such that a path from 0 through exactly `mask` ends at v.
  std::vector<uint32_t> reach(size_t{1} << n, 0);
  std::vector<uint32_t> nbr(n, 0);
  for (size_t v = 0; v < n; ++v)
    for (int u : g[v])
      nbr[v] |= 1u << u;
  reach[1] = 1;
  for (uint32_t mask = 1; mask < (1u << n); mask += 2) {
    uint32_t ends = reach[mask];
    for (size_t v = 0; ends; ++v, ends >>= 1) {
      if (!(ends & 1)) continue;
      uint32_t next = nbr[v] & ~mask;
      for (size_t u = 0; next; ++u, next >>= 1)
        if (next & 1) reach[mask | (1u << u)] |= 1u << u;
    }
  }
  return (reach[(1u << n) - 1] & nbr[0]) != 0;
}

Adjacency adjacency_from_matrix(const std::vector<std::vector<int>>& matrix) {
  Adjacency g(matrix.size());
  for (size_t i = 0; i < matrix.size(); ++i)
    for (size_t j = 0; j < matrix[i].size() && j < matrix.size(); ++j)
      if (i != j && (matrix[i][j] > 0 || matrix[j][i] > 0)) g[i].push_back(j);
  return g;
}

}  // namespace meshplan
