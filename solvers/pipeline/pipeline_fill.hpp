// A pipeline assignment and its evaluation written out as a plan: ranks, GPU stages inside each
// rank, hops, the prediction and its bottleneck.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "lib/plan/plan.hpp"
#include "solvers/problem/pipeline_cost.hpp"

namespace meshplan {

// The MLX backend that carries a pipeline over these hops.
std::string pipeline_backend(const std::vector<std::optional<LinkFigures>>& hops);

// Fills plan.ranks and plan.predicted from an evaluated assignment.
void fill_pipeline_plan(const PipelineCostModel& cost, const PipelineAssignment& a,
                        const PipelineEvaluation& e, Plan& plan);

}  // namespace meshplan
