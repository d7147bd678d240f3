// Stage layouts that weigh the links between consecutive stages, for clusters whose regions are
// joined by slow links. The stage layouts of routed_stages.hpp pick each stage's hosts by their
// tables alone, so the tokens often cross between regions at one boundary over one or two slow
// links. Here the layers are walked stage by stage and the flow pushed forward: each stage's hosts
// take what the hosts of the stage before can pass them (a small max flow over the links between
// the two stages, each host of that stage giving what reached it), so a stage that mixes the hosts
// of two regions lets tokens cross at several boundaries. The figure kept for a partial layout is
// the flow a real routing carries through it, never more; per (layers placed, hosts used) the
// program keeps the kLinkedBeam best partial layouts that end in different stages.
#pragma once

#include <cstdint>
#include <vector>

#include "solvers/routed/routed_bounds.hpp"
#include "solvers/routed/routed_flow.hpp"

namespace meshplan {

inline constexpr size_t kLinkedBeam = 2;         // partial layouts kept per state
inline constexpr int kMostLinkedStageHosts = 3;  // hosts in one stage, at most
// Steps (a stage tried after a partial layout; a max flow between two stages counts 5) before the
// program gives up, at most: a budget of work, so the answer is the same on any machine; about 0.3
// s on the 2-core CI machine.
inline constexpr int64_t kMostLinkedSteps = 2'000'000;
// The program is not tried past this many counts of hosts used (the product over the groups of
// their sizes + 1): 12 hosts all different give 4,096.
inline constexpr double kMostLinkedStates = 4096;

// Seconds of work a step stands for (2,000,000 steps take about 0.3 s there), for a caller that
// takes the program's work out of another step's share of one budget.
inline constexpr double kLinkedStepS = 1.5e-7;

// The best layout found whose flow is above `low`, measured by its max flow; flow 0 when none is,
// or when the program would pass `max_steps` (many hosts of many kinds). `steps`, when given,
// gets the steps taken.
Chains linked_stage_layout(const RoutedInstance& instance,
                           const std::vector<std::vector<size_t>>& groups, double low,
                           int64_t max_steps = kMostLinkedSteps, int64_t* steps = nullptr);

}  // namespace meshplan
