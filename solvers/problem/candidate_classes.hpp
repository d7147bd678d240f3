// Interchangeable candidates of a planning problem: two hosts are interchangeable when swapping
// them changes no figure a strategy reads (every figure but the name, the same link to each other
// host under every transport and to each other, neither pinned nor the only host that may hold
// the head). Swapping two of them is an automorphism of the problem, so a search over groups of
// hosts may try one grouping of each shape per class and name the hosts at the end.
#pragma once

#include <vector>

#include "solvers/problem/planning_problem.hpp"

namespace meshplan {

// Whether the two figures are the same but for the name.
bool same_figures(const HostFigures& a, const HostFigures& b);

// Whether swapping candidates i and j changes nothing the problem holds.
bool interchangeable(const PlanningProblem& problem, size_t i, size_t j);

// For each of `among` (candidate indices), its class: equal for interchangeable hosts, numbered
// from 0 in the order of first appearance.
std::vector<int> candidate_classes(const PlanningProblem& problem,
                                   const std::vector<size_t>& among);

// The candidates with at most `cap` of each class, in candidate order: all a search needs when no
// plan uses more than `cap` hosts, since the rest of a class could only stand in for those kept.
std::vector<size_t> at_most_per_class(const PlanningProblem& problem, size_t cap);
// The same among `among` (candidate indices, in order) alone; classes are still judged on the
// links to every candidate.
std::vector<size_t> at_most_per_class(const PlanningProblem& problem, size_t cap,
                                      const std::vector<size_t>& among);

}  // namespace meshplan
