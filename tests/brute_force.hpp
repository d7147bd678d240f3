// The test oracle of the pipeline solvers: enumerates every ordered subset of hosts (rank 0
// first), every split of the layers into non-empty contiguous ranges, and keeps the fastest
// assignment that PipelineCostModel::evaluate() finds feasible and that honours the pins and the
// host-count limits. Exponential in everything: tiny instances only.
#pragma once

#include "solvers/problem/search_space.hpp"

namespace meshplan {

SearchResult brute_force_pipeline(const PipelineCostModel& cost,
                                  const PipelineConstraints& constraints);

}  // namespace meshplan
