// mlx-lm's own pipeline split as a solver: mlx_lm/models/pipeline.py takes no layer ranges, it
// gives each of its k ranks len(layers) / k layers, rank 0 the last ones, and loads the embedding
// and the LM head on every rank. A plan for mlx-lm can only choose which hosts run it and in
// which order, and k must divide the layer count: otherwise some layers are computed by no rank
// (lib/plan/engines.hpp mlx_lm_orphaned_layers) and the model answers wrongly without an error.
#pragma once

#include <string>

#include "solvers/problem/pipeline_cost.hpp"
#include "solvers/problem/search_space.hpp"

namespace meshplan {

struct EvenSplitResult {
  bool feasible = false;
  PipelineAssignment assignment;  // ranks in layer order: the first holds layer 0
  bool exhaustive = false;        // every ordered choice of hosts was tried
  std::string why;                // when infeasible: what stops every host count
};

// Hosts this many or fewer are searched in every order; beyond, the fastest are kept.
inline constexpr size_t kEvenSplitExactHosts = 8;

// The fastest equal split over `cost`'s hosts under the host-count limits of `constraints`:
// every host count k dividing the layers, every ordered choice of k hosts (every order up to 6
// hosts, rotations beyond), each host holding its layers plus the embedding and LM head.
EvenSplitResult best_even_split(const PipelineCostModel& cost, const PipelineConstraints& c);

}  // namespace meshplan
