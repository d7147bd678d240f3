// The `optimal` pipeline solver: the exact subset DP (exact_pipeline.hpp) whenever the candidate
// hosts have at most 2^12 subsets up to symmetry (so always for up to 12 hosts, and for larger
// clusters made of a few kinds of identical hosts), seeded with an incumbent from fixed ring
// orders; the heuristic search (pipeline_heuristic.hpp) beyond.
#pragma once

#include <vector>

#include "solvers/pipeline/pipeline_heuristic.hpp"
#include "solvers/problem/search_space.hpp"

namespace meshplan {

struct OptimalOptions {
  double exact_subset_limit = 4096;
  HeuristicOptions heuristic;
};

// `given_order`: the candidate hosts in the order the user gave them (the proportional ring).
// result.exact: the result is proven optimal (or, when not feasible, proven infeasible). The
// assignment is in the cost model's order (SearchSpace::to_layers).
SearchResult solve_optimal_pipeline(const SearchSpace& space,
                                    const std::vector<size_t>& given_order,
                                    const OptimalOptions& options = {});

}  // namespace meshplan
