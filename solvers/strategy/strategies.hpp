// The strategies `meshplan plan` knows, in the order `--strategy auto` tries them (ties go to
// the earlier one). Each plans over the one PlanningProblem of the call; a new strategy is one
// file with its plan function plus one row here.
#pragma once

#include <string_view>
#include <vector>

#include "lib/core/clock.hpp"
#include "lib/plan/strategy_kind.hpp"
#include "solvers/problem/plan_inputs.hpp"
#include "solvers/problem/planning_problem.hpp"

namespace meshplan {

struct Strategy {
  StrategyKind kind = StrategyKind::kPipeline;
  std::string_view name;  // name(kind), filled in from the name table
  // Whether --pin applies: only layer ranges can be pinned.
  bool takes_pins = false;
  // The best plan, or why none exists; infeasibility may also be thrown as a failure.
  StrategyOutcome (*plan)(const PlanningProblem& problem, const Clock& clock) = nullptr;
};

const std::vector<Strategy>& strategies();
// nullptr for an unknown name, and for auto (which is every row).
const Strategy* find_strategy(std::string_view name);
const Strategy& strategy(StrategyKind kind);

}  // namespace meshplan
