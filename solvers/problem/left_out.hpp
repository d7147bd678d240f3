// Why a plan leaves a candidate host out: no link its backend can use to the plan's hosts, too
// small to hold one layer (or its share), or not faster. Every strategy names its left-out hosts
// this way, in plan.hosts[].left_out and in one note (which names up to eight hosts left out for
// one reason, and beyond that the first three and how many more).
#pragma once

#include "lib/plan/plan.hpp"
#include "solvers/problem/planning_problem.hpp"

namespace meshplan {

// Fills plan.hosts (every candidate, used or not, with the reason for those left out) and adds
// the "left out: ..." note. `constrained` names the flags that limited the choice ("--max-hosts",
// "--pin", ...), only those the user gave.
void record_left_out(Plan& plan, const PlanningProblem& problem, const std::string& constrained);

// Rebuilds the "left out: ..." note from plan.hosts after a reason changed.
void rewrite_left_out_note(Plan& plan);

}  // namespace meshplan
