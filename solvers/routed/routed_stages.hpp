// Stage layouts for routed serving: the layers cut into consecutive stages, each held by a set of
// hosts that all hold exactly that stage's range, so that every host of one stage passes tokens
// to every host of the next. With hosts grouped by kind, the best such layout (the largest
// slowest-stage capacity) is a dynamic program over (layers placed, hosts of each kind used);
// it is one of the routed search's starting layouts.
#pragma once

#include <vector>

#include "solvers/routed/routed_bounds.hpp"
#include "solvers/routed/routed_flow.hpp"

namespace meshplan {

// Hosts that differ in nothing the flow sees (table, LM head, memory limits, links), as groups of
// host indices in instance order.
std::vector<std::vector<size_t>> interchangeable_hosts(const RoutedInstance& instance);

// Hosts used per group as one mixed-radix number: digit g is how many of group g's hosts.
class GroupCounts {
 public:
  explicit GroupCounts(const std::vector<std::vector<size_t>>& groups);
  // How many numbers there are, before forming them: for thousands of hosts of many kinds it
  // passes what a size_t holds.
  static double how_many(const std::vector<std::vector<size_t>>& groups);
  size_t size() const { return radix_.back(); }
  size_t unit(size_t g) const { return radix_[g]; }
  size_t digit(size_t code, size_t g) const {
    return code / radix_[g] % (radix_[g + 1] / radix_[g]);
  }

 private:
  std::vector<size_t> radix_;
};

// The best stage layout, measured by its max flow on the real links; nothing (flow 0) when the
// program would take more than `max_work` steps (many kinds of hosts: 42 hosts of 7 kinds).
Chains best_stage_layout(const RoutedInstance& instance,
                         const std::vector<std::vector<size_t>>& groups, double max_work = 3e7);

// For many kinds of hosts: stages of one kind each. For a target flow F, each kind's hosts can
// cover some exact numbers of layers with stages of m hosts holding l layers where m * t(l) >= F;
// a sum of those over the kinds that equals the layer count makes F feasible. The largest
// feasible F (by bisection) gives the layout, measured by its max flow on the real links.
Chains best_kind_stages(const RoutedInstance& instance,
                        const std::vector<std::vector<size_t>>& groups, double low, double high);

}  // namespace meshplan
