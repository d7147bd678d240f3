// The tensor-parallel degree of every multi-GPU host in a pipeline, chosen rather than assumed:
// each host of several GPUs can split its layers over all of them, or run as a pipeline of
// smaller groups (vLLM's TP x PP inside a node). Identical hosts get the same degree; every
// combination over the kinds of host is planned (up to kMaxCombinations, then one kind at a time
// from the widest) and the fastest plan kept, its bound the least of theirs.
#pragma once

#include <functional>
#include <vector>

#include "lib/core/clock.hpp"
#include "solvers/problem/plan_inputs.hpp"

namespace meshplan {

class PlanningProblem;

using PlanAt = std::function<StrategyOutcome(const PlanningProblem&, const Clock&)>;

constexpr size_t kMaxCombinations = 256;

// Runs `plan_at` over the problem at each combination of degrees (once when no host has a choice)
// and returns the fastest plan whose GPU groups fit. Throws what the widest combination throws
// when none fits.
StrategyOutcome choose_tensor_degrees(const PlanningProblem& problem, const Clock& clock,
                                      const PlanAt& plan_at);

// The degrees every host of the problem can run at once, widest first: those each multi-GPU host
// takes (tensor_degrees), and only 1 when a host has one device. vLLM runs a pipeline at one
// degree on every stage; `fits` says which degrees the engine's heads rule allows.
std::vector<int> common_tensor_degrees(const PlanningProblem& problem,
                                       const std::function<bool(int)>& fits);

}  // namespace meshplan
