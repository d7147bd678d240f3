#include "solvers/pipeline/optimal_pipeline.hpp"

#include <fmt/format.h>

#include "solvers/pipeline/exact_pipeline.hpp"
#include "solvers/pipeline/host_classes.hpp"
#include "solvers/pipeline/range_dp.hpp"

namespace meshplan {

SearchResult solve_optimal_pipeline(const SearchSpace& space,
                                    const std::vector<size_t>& given_order,
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

}  // namespace meshplan
