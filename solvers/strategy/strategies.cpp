#include "solvers/strategy/strategies.hpp"

#include "lib/core/error.hpp"
#include "solvers/parallel/expert_parallel.hpp"
#include "solvers/parallel/hybrid_plan.hpp"
#include "solvers/parallel/tensor_parallel.hpp"
#include "solvers/pipeline/pipeline_plan.hpp"

namespace meshplan {

const std::vector<Strategy>& strategies() {
  static const std::vector<Strategy> table = [] {
    std::vector<Strategy> rows = {
        {StrategyKind::kPipeline, {}, true, plan_pipeline},
        {StrategyKind::kTensor, {}, false, plan_tensor},
        {StrategyKind::kExpert, {}, false, plan_expert},
        {StrategyKind::kHybrid, {}, false, plan_hybrid},
    };
    for (Strategy& s : rows)
      s.name = name(s.kind);
    return rows;
  }();
  return table;
}

const Strategy* find_strategy(std::string_view name) {
  for (const Strategy& s : strategies())
    if (s.name == name) return &s;
  return nullptr;
}

const Strategy& strategy(StrategyKind kind) {
  for (const Strategy& s : strategies())
    if (s.kind == kind) return s;
  throw internal_error("no strategy row for {}", name(kind));
}

}  // namespace meshplan
