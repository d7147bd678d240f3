#include "solvers/pipeline/optimal_pipeline.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "solvers/pipeline/exact_pipeline.hpp"
#include "solvers/pipeline/host_classes.hpp"
#include "solvers/pipeline/range_dp.hpp"

namespace meshplan {

namespace {

SearchResult solve_in_space_order(const SearchSpace& space, const std::vector<size_t>& given_order,
                                  const OptimalOptions& options) {
  HostClasses classes = host_classes(space);
  double subsets = classes.subset_count();
  if (subsets > options.exact_subset_limit)
    return heuristic_pipeline_search(space, classes, given_order, options.heuristic);

  // Incumbent from the seed orders: the exact search then only keeps states that can beat it.
  SearchResult seed;
  for (const auto& seq : seed_orders(space, given_order)) {
    SearchResult r = best_on_sequence(space, seq, true);
    if (r.feasible && r.latency_s < seed.latency_s) seed = r;
  }
  auto exact = exact_pipeline_search(space, classes, seed.latency_s, options.exact_subset_limit);
  SearchResult out = exact->feasible ? *exact : seed;
  out.exact = true;
  out.states = exact->states;
  std::string symmetry = classes.size() < space.num_hosts()
                             ? fmt::format(" ({} kinds of interchangeable hosts)", classes.size())
                             : std::string();
  out.method = fmt::format(
      "exact: dynamic program over {:.0f} host subsets{}, every ring order and layer split",
      subsets, symmetry);
  return out;
}

}  // namespace

SearchResult solve_optimal_pipeline(const SearchSpace& space,
                                    const std::vector<size_t>& given_order,
                                    const OptimalOptions& options) {
  // The given order seeds the search as it is in a backwards space too (head on the last rank):
  // among plans of equal time, the hosts given first are kept, as in a forwards one.
  SearchResult out = solve_in_space_order(space, given_order, options);
  if (out.feasible && space.reversed() && out.assignment.order.size() > 2) {
    // Their ranks then follow the given order too when that is as fast: the head's host last
    // (space rank 0), the others before it as given (the space runs backwards).
    std::vector<size_t> seq{out.assignment.order.front()};
    for (auto it = given_order.rbegin(); it != given_order.rend(); ++it)
      if (*it != seq.front() && std::find(out.assignment.order.begin(), out.assignment.order.end(),
                                          *it) != out.assignment.order.end())
        seq.push_back(*it);
    SearchResult same = best_on_sequence(space, seq, false);
    if (same.feasible && same.latency_s <= out.latency_s * (1 + 1e-12)) {
      out.assignment = same.assignment;
      out.latency_s = same.latency_s;
    }
  }
  if (out.feasible) out.assignment = space.to_layers(out.assignment);
  return out;
}

}  // namespace meshplan
