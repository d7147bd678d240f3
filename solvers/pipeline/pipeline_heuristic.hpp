// The pipeline search for clusters too large for the exact dynamic program (more than 2^12 host
// subsets up to symmetry). Deterministic:
//  1. seed ring orders — the given host order (so the result is never slower than the
//     proportional split on it), hosts by speed, and a short tour of the hop costs (nearest
//     neighbour from the fastest host, then 2-opt) — each solved exactly for host selection and
//     layer ranges by best_on_sequence();
//  2. local search on the ring of the best plan: insert a free host, replace a host by a free one,
//     swap two ranks, reverse a stretch of the ring; each candidate solved by best_on_sequence()
//     (which may also drop hosts); first improvement, until none helps or the evaluation budget
//     is spent;
//  3. polish with the exact subset DP restricted to the hosts used plus one more member of each
//     class (as many classes as keep the pool within the exact search's limit).
// The result is reported with its gap to the lower bound; it is not claimed optimal.
#pragma once

#include <vector>

#include "solvers/pipeline/host_classes.hpp"
#include "solvers/problem/search_space.hpp"

namespace meshplan {

struct HeuristicOptions {
  int max_evaluations = 3000;  // best_on_sequence() calls in the local search
};

SearchResult heuristic_pipeline_search(const SearchSpace& space, const HostClasses& classes,
                                       const std::vector<size_t>& given_order,
                                       const HeuristicOptions& options = {});

// The seed orders of step 1 (also used to find an incumbent for the exact search).
std::vector<std::vector<size_t>> seed_orders(const SearchSpace& space,
                                             const std::vector<size_t>& given_order);

}  // namespace meshplan
