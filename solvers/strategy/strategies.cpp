#include "solvers/strategy/strategies.hpp"

#include "solvers/parallel/expert_parallel.hpp"
#include "solvers/parallel/hybrid_plan.hpp"
#include "solvers/parallel/tensor_parallel.hpp"
#include "solvers/pipeline/pipeline_plan.hpp"

namespace meshplan {

const std::vector<Strategy>& strategies() {
  static const std::vector<Strategy> table = {
      {"pipeline", true, plan_pipeline},
      {"tensor", false, plan_tensor},
      {"expert", false, plan_expert},
      {"hybrid", false, plan_hybrid},
  };
  return table;
}

const Strategy* find_strategy(std::string_view name) {
  for (const Strategy& s : strategies())
    if (s.name == name) return &s;
  return nullptr;
}

}  // namespace meshplan
