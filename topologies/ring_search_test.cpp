// The ring search must agree with exhaustive answers, return MLX's ring (the first its DFS finds),
// and decide large sparse graphs without enumerating cycles.
#include "topologies/ring_search.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <random>
#include <set>

namespace meshplan::ring_search_test {
namespace {

Adjacency from_edges(size_t n, const std::vector<std::pair<size_t, size_t>>& edges) {
  Adjacency g(n);
  for (auto [a, b] : edges) {
    g[a].push_back(b);
    g[b].push_back(a);
  }
  return g;
}

bool is_ring(const Adjacency& g, const std::vector<size_t>& ring) {
  if (ring.size() != g.size()) return false;
  std::set<size_t> seen(ring.begin(), ring.end());
  if (seen.size() != g.size()) return false;
  auto adjacent = [&](size_t a, size_t b) {
    return std::find(g[a].begin(), g[a].end(), b) != g[a].end();
  };
  for (size_t k = 0; k < ring.size(); ++k)
    if (!adjacent(ring[k], ring[(k + 1) % ring.size()])) return false;
  return true;
}

// mlx.distributed_config's extract_rings: DFS from every start, lowest neighbour first, every
// simple cycle; the first one through all hosts wins.
std::optional<std::vector<size_t>> mlx_first_full_ring(const Adjacency& g) {
  const size_t n = g.size();
  std::vector<std::vector<int>> c(n, std::vector<int>(n, 0));
  for (size_t v = 0; v < n; ++v)
    for (size_t u : g[v])
      c[v][u] = 1;
  std::vector<size_t> path;
  std::vector<char> visited(n, 0);
  std::optional<std::vector<size_t>> found;
  std::function<void(size_t, size_t)> dfs = [&](size_t start, size_t node) {
    path.push_back(node);
    visited[node] = 1;
    for (size_t j = 0; j < n && !found; ++j) {
      if (c[node][j] <= 0) continue;
      if (j == start && path.size() == n) found = path;
      if (!visited[j]) dfs(start, j);
    }
    path.pop_back();
    visited[node] = 0;
  };
  for (size_t s = 0; s < n && !found; ++s)
    dfs(s, s);
  return found;
}

Adjacency random_graph(size_t n, int lo, int hi, std::mt19937& rng) {
  std::vector<std::set<size_t>> s(n);
  std::uniform_int_distribution<int> want_d(lo, hi);
  std::uniform_int_distribution<size_t> pick(0, n - 1);
  std::vector<int> want(n);
  for (auto& w : want)
    w = want_d(rng);
  for (size_t it = 0; it < 50 * n; ++it) {
    size_t a = pick(rng), b = pick(rng);
    if (a == b || s[a].count(b) || static_cast<int>(s[a].size()) >= want[a] ||
        static_cast<int>(s[b].size()) >= want[b])
      continue;
    s[a].insert(b);
    s[b].insert(a);
  }
  Adjacency g(n);
  for (size_t v = 0; v < n; ++v)
    g[v].assign(s[v].begin(), s[v].end());
  return g;
}

TEST(ring_search_test, small_cases) {
  EXPECT_FALSE(find_ring({}).has_value());
  EXPECT_EQ(find_ring(Adjacency(1)), std::vector<size_t>{0});
  EXPECT_FALSE(find_ring(Adjacency(2)).has_value());
  EXPECT_EQ(find_ring(from_edges(2, {{0, 1}})),
            (std::vector<size_t>{0, 1}));  // one cable is a ring (MLX)
  EXPECT_EQ(find_ring(from_edges(3, {{0, 1}, {1, 2}, {2, 0}})), (std::vector<size_t>{0, 1, 2}));
  RingSearchStats stats;
  EXPECT_FALSE(find_ring(from_edges(4, {{0, 1}, {1, 2}, {2, 3}}), &stats).has_value());  // a chain
  EXPECT_EQ(stats.decided_by, "degree");
  // Parallel edges and self loops change nothing.
  EXPECT_EQ(find_ring(from_edges(3, {{0, 1}, {0, 1}, {1, 1}, {1, 2}, {2, 0}})),
            (std::vector<size_t>{0, 1, 2}));
}

TEST(ring_search_test, obstructions_are_found_before_searching) {
  RingSearchStats stats;
  // Two complete groups of four sharing host 3: a cut vertex.
  std::vector<std::pair<size_t, size_t>> edges;
  for (size_t a = 0; a < 4; ++a)
    for (size_t b = a + 1; b < 4; ++b) {
      edges.emplace_back(a, b);
      edges.emplace_back(a + 3, b + 3);
    }
  EXPECT_FALSE(find_ring(from_edges(7, edges), &stats));
  EXPECT_EQ(stats.decided_by, "cut-vertex");
  // Complete bipartite K(3,4): unbalanced sides.
  edges.clear();
  for (size_t a = 0; a < 3; ++a)
    for (size_t b = 3; b < 7; ++b)
      edges.emplace_back(a, b);
  EXPECT_FALSE(find_ring(from_edges(7, edges), &stats));
  EXPECT_EQ(stats.decided_by, "bipartite");
  // Three groups of four hanging off the same three hosts: removing them leaves 3 + 1 pieces.
  edges.clear();
  for (size_t g = 0; g < 4; ++g) {
    size_t base = 3 + 4 * g;
    for (size_t a = 0; a < 4; ++a) {
      for (size_t b = a + 1; b < 4; ++b)
        edges.emplace_back(base + a, base + b);
      edges.emplace_back(base + a, a % 3);
    }
  }
  EXPECT_FALSE(find_ring(from_edges(19, edges), &stats));
  EXPECT_EQ(stats.decided_by, "separator");
  // Three hosts each cabled only to the same two: degree-2 hosts force three edges on those two.
  EXPECT_FALSE(
      find_ring(from_edges(5, {{0, 2}, {1, 2}, {0, 3}, {1, 3}, {0, 4}, {1, 4}, {0, 1}}), &stats));
  EXPECT_EQ(stats.decided_by, "forced-edges");
}

TEST(ring_search_test, agrees_with_held_karp_and_returns_mlx_ring) {
  std::mt19937 rng(7);
  int rings = 0;
  for (size_t n = 3; n <= 10; ++n) {
    for (int trial = 0; trial < 300; ++trial) {
      Adjacency g = random_graph(n, 2, n < 6 ? 3 : 5, rng);
      bool exact = has_ring_held_karp(g);
      auto lowest = find_ring(g, nullptr, RingOrder::kLowestFirst);
      auto fewest = find_ring(g, nullptr, RingOrder::kFewestOptions);
      ASSERT_EQ(lowest.has_value(), exact) << "n=" << n << " trial " << trial;
      ASSERT_EQ(fewest.has_value(), exact) << "n=" << n << " trial " << trial;
      if (!exact) continue;
      ++rings;
      EXPECT_TRUE(is_ring(g, *lowest));
      EXPECT_TRUE(is_ring(g, *fewest));
      if (n <= 8) {
        EXPECT_EQ(lowest, mlx_first_full_ring(g)) << "n=" << n << " trial " << trial;
      }
    }
  }
  EXPECT_GT(rings, 500);  // both kinds of answers were exercised
}

TEST(ring_search_test, full_mesh_of_nine_gives_mlx_order_at_once) {
  Adjacency g(9);
  for (size_t a = 0; a < 9; ++a)
    for (size_t b = 0; b < 9; ++b)
      if (a != b) g[a].push_back(b);
  RingSearchStats stats;
  auto ring = find_ring(g, &stats);
  ASSERT_TRUE(ring);
  EXPECT_EQ(*ring, (std::vector<size_t>{0, 1, 2, 3, 4, 5, 6, 7, 8}));
  EXPECT_EQ(stats.nodes, 9u);  // no backtracking
}

TEST(ring_search_test, large_sparse_graphs_are_decided) {
  std::mt19937 rng(2024);
  for (int trial = 0; trial < 10; ++trial) {
    // A hidden ring plus extra cables up to 3-6 per host.
    const size_t n = 64;
    std::vector<size_t> perm(n);
    for (size_t i = 0; i < n; ++i)
      perm[i] = i;
    std::shuffle(perm.begin(), perm.end(), rng);
    Adjacency g = random_graph(n, 1, 4, rng);
    for (size_t i = 0; i < n; ++i) {
      g[perm[i]].push_back(perm[(i + 1) % n]);
      g[perm[(i + 1) % n]].push_back(perm[i]);
    }
    RingSearchStats stats;
    auto ring = find_ring(g, &stats);
    ASSERT_TRUE(ring) << "trial " << trial;
    EXPECT_TRUE(is_ring(g, *ring));
    EXPECT_LT(stats.nodes, 20000u) << "trial " << trial;
  }
}

}  // namespace
}  // namespace meshplan::ring_search_test
