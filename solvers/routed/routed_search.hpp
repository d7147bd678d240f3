// The routed layout with the highest flow (issue 19): each host gets one range of layers or is
// left out. Starts from the best single pipeline, the disjoint replicas, the best stage layout
// (solvers/routed_stages.hpp; where slow links join regions, also the stages that weigh their
// links, routed_linked_stages.hpp) and the sweep over shared boundaries (routed_greedy.hpp), the
// best of them raised by local moves, then searches layouts by branch and bound, sweeping the
// layer boundaries from the first layer to the last: at each point where some host's range ends,
// which hosts start there and with how many layers. Hosts with the same table, memory limits and
// links are one group, so the search never tries two layouts that differ only by swapping them. Two
// bounds prune: the flow of the part placed so far (routed_max_flow with a cut), and the layer work
// the open and unplaced hosts can still do. A search that ends inside its time proves its layout
// optimal; so does a layout that meets the upper bound.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "lib/core/clock.hpp"
#include "solvers/routed/routed_bounds.hpp"
#include "solvers/routed/routed_flow.hpp"

namespace meshplan {

// The search's budget is work, not time: its limit is read on a WorkClock that advances a step
// each time the search checks it (every 256 partial layouts, every sweep, every move), so the
// same instance gets the same layout on an idle machine and on a busy one. The step is about what
// the work between two checks takes on one core of the 2-core CI machine: 5 ms for 42 hosts, in
// proportion to the hosts.
double routed_read_step_s(size_t hosts);

struct RoutedOptions {
  double time_limit_s = 1.5;     // the budget, in seconds of kRoutedReadStepS reads
  const Clock* clock = nullptr;  // for the phases' times and solve_s only; SteadyClock when null
  int64_t max_nodes = INT64_MAX;
  // Tighten the bound by the layers' covers (routed_cover_bound.hpp); a fleet's shards do not,
  // their gap being measured against the fleet's own bound.
  bool covers = true;
};

struct RoutedSolution {
  RoutedLayout layout;
  RoutedFlow flow;
  RoutedBound bound;
  bool optimal = false;
  std::string proof;  // how optimality was shown, or why not
  Chains pipeline;    // baselines on the same tables
  Chains replicas;
  Chains stages;  // the best stage layout (solvers/routed_stages.hpp), when computed
  Chains greedy;  // the sweep over shared boundaries (solvers/routed_greedy.hpp)
  int moves = 0;  // local moves that raised the best starting layout
  // Where the time went: each step's name and seconds, in order.
  std::vector<std::pair<std::string, double>> phases;
  int64_t nodes = 0;  // layouts and partial layouts the search visited
  double solve_s = 0;
  int groups = 0;     // hosts that differ in table, memory or links
  size_t shards = 0;  // a fleet searched in shards (routed_shards.hpp): how many; 0 otherwise
};

// `bound`: routed_upper_bound(instance), where the caller has worked it out already.
RoutedSolution solve_routed(const RoutedInstance& instance, const RoutedOptions& options = {},
                            const RoutedBound* bound = nullptr);

// The order solve_routed searches the hosts in, set by what they are and not by where the caller
// listed them or what it named them: region by region (routed_regions), the larger regions and
// then those of faster tables first, and inside a region by table, memory limits, LM head time and
// the speeds of their links. Hosts equal in all of it keep the caller's order.
std::vector<size_t> routed_canonical_order(const RoutedInstance& instance);

}  // namespace meshplan
