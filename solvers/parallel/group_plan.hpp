// What tensor- and expert-parallel plans share: a group of ranks that all run every layer, each
// with its own work per token, joined by a collective. One evaluation type for both strategies,
// and the one function that turns an evaluated group into the plan's ranks and prediction.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "lib/models/model.hpp"
#include "lib/plan/plan.hpp"
#include "solvers/problem/allreduce_paths.hpp"
#include "solvers/problem/plan_inputs.hpp"
#include "solvers/problem/planning_problem.hpp"

namespace meshplan {

struct GroupEvaluation {
  double token_latency_s = 0;
  double ttft_s = 0;
  double layers_s = 0;      // sum over layers of the slowest rank
  double collective_s = 0;  // all-reduces (tensor) or expert exchanges (expert), per token
  double head_s = 0;        // LM head (replicated: the slowest rank's)
  double overhead_s = 0;
  std::vector<double> rank_s;  // each rank's own work per token
  std::vector<bool> memory_bound;
  std::vector<double> weight_bytes, kv_bytes, memory_bytes;
};

struct GroupPlanSpec {
  std::string strategy;         // "tensor" or "expert"
  std::string collective_what;  // "all-reduces", "expert exchanges": for the bottleneck
  int64_t context = 0;
  int64_t prompt = 0;
  double message_bytes = 0;           // activation bytes one collective moves
  double collective_per_layer_s = 0;  // per layer that has one
  int collective_layers = 0;
  // Extra words about the slowest rank in the bottleneck, e.g. its share (may be empty).
  std::function<std::string(size_t rank)> rank_note;
};

// Fills the model header, one RankPlan per rank of `path` (strategy-specific fields such as
// share and experts are left to the caller), the prediction with its bottleneck, and the
// collective.
// Adds what every plan of a group strategy reports beside its own figures: the pipeline
// baselines over the plan's hosts in rank order, and every candidate host with its figures and
// whether the plan uses it.
void complete_group_plan(Plan& plan, const PlanningProblem& problem);

void fill_group_plan(Plan& plan, const ModelDesc& model, const PlanInputs& in,
                     const CollectivePath& path, const GroupEvaluation& e,
                     const GroupPlanSpec& spec);

}  // namespace meshplan
