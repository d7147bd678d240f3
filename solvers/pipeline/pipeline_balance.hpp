// A tie-break for pipelines: among splits over the same hosts in the same order with the same
// time per token, the one whose fullest host is least full. On identical hosts every split of the
// layers is as fast, and an exact solver may return any of them, e.g. one Mac filled to the brim
// and the next nearly empty; the balanced one leaves each the same margin.
#pragma once

#include "solvers/problem/pipeline_cost.hpp"

namespace meshplan {

// Moves single layers across rank boundaries while the time per token does not grow and the
// largest memory fill (bytes held / usable) falls.
PipelineAssignment balance_memory(const PipelineCostModel& cost, PipelineAssignment assignment);

}  // namespace meshplan
