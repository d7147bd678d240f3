// macOS wires only part of a Mac's memory for the GPU unless iogpu.wired_limit_mb is raised
// (lib/data/cost_defaults.json: usable_memory.macos_default_wired). A plan that puts more than
// that on a Mac says so per rank, with the value to set.
#pragma once

#include "lib/plan/plan.hpp"
#include "solvers/problem/planning_problem.hpp"

namespace meshplan {

void mark_wired_limits(Plan& plan, const PlanningProblem& problem);

}  // namespace meshplan
