// Exact search for a ring through all hosts (a Hamiltonian cycle of the cable graph) without
// enumerating simple cycles: cheap necessary conditions first (degrees, cut vertices, small
// separators, bipartite balance), then a depth-first search pruned by forced moves, available
// degrees, 2-connectivity and parity of what is left. The first cycle found in lowest-index-first
// order is the one mlx.distributed_config's DFS finds first, so rank orders stay compatible.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace meshplan {

// Undirected graph: neighbours of each vertex. Parallel edges and self loops are ignored.
using Adjacency = std::vector<std::vector<size_t>>;

struct RingSearchStats {
  uint64_t nodes = 0;      // search nodes expanded
  std::string decided_by;  // "trivial", "degree", "cut-vertex", "separator", "bipartite",
                           // "forced-edges", "search"
};

enum class RingOrder {
  kAuto,           // default_ring_order(n)
  kLowestFirst,    // lowest-index neighbour first: the lexicographically smallest ring (MLX's)
  kFewestOptions,  // neighbour with the fewest remaining options first: faster on large graphs
};

// A cycle through every vertex starting at vertex 0, or nullopt when none exists. Two vertices
// joined by one edge form a ring (as in MLX); a single vertex is a ring of its own.
std::optional<std::vector<size_t>> find_ring(const Adjacency& graph,
                                             RingSearchStats* stats = nullptr,
                                             RingOrder order = RingOrder::kAuto);

// What kAuto means for `n` vertices: MLX's order up to 16 hosts (mlx.distributed_config itself
// needs minutes beyond 10), fewest options first beyond, where it is much faster.
RingOrder default_ring_order(size_t n);

// Held-Karp dynamic programme over subsets (n <= 24): the reference answer for tests.
bool has_ring_held_karp(const Adjacency& graph);

// Symmetric adjacency from a 0/1 matrix.
Adjacency adjacency_from_matrix(const std::vector<std::vector<int>>& matrix);

}  // namespace meshplan
