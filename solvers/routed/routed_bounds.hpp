// Upper bounds on the flow of any routed layout, and the baselines a routed plan is compared with:
// the best single pipeline and disjoint replicas, each planned on the same tables.
#pragma once

#include <string>
#include <vector>

#include "solvers/routed/routed_flow.hpp"
#include "solvers/routed/routed_tables.hpp"

namespace meshplan {

// A host's most layer-passes per second at a flow of F: max over k of k * min(t(k), F). Every
// token passes every layer once, and no host carries more than the whole flow, so a flow F needs
// F * layers <= sum over hosts of that. Kept as the table sorted by tokens/s for fast evaluation.
class LayerWork {
 public:
  LayerWork() = default;
  explicit LayerWork(const std::vector<double>& table);
  // max_k k * min(t(k), F) / F
  double per_flow(double flow) const;

 private:
  std::vector<double> t_desc_;     // tokens/s, falling
  std::vector<int> prefix_k_;      // most layers among the first i entries (t >= F)
  std::vector<double> suffix_kt_;  // most k * t(k) among entries from i on (t < F)
};

struct RoutedBound {
  double tokens_per_s = 0;
  std::string method;
};

// The least of: the layer-work bound above (never looser than the compute bound, the sum over
// hosts of max_k k * t(k) over the layer count), what the hosts able to hold the first layer can
// take in, and what the hosts able to hold the last layer can give out; each read on the tables
// cut to what the hosts' links carry (link_capped, routed_tables.hpp).
RoutedBound routed_upper_bound(const RoutedInstance& instance);

struct Chains {
  double tokens_per_s = 0;  // the layout's max flow
  RoutedLayout layout;      // unused hosts left out
  int chains = 0;
};

// The single pipeline with the highest flow: hosts in a chain, each with a range, the slowest host
// (or link) setting the pace. Exact when every pair of hosts is linked (the order is then free);
// otherwise the layout found is measured on the real links.
Chains best_pipeline(const RoutedInstance& instance, const std::vector<bool>& allowed);

// Measures `layout`'s max flow and keeps it in `best` (as one chain) when it carries more.
void keep_if_better(Chains& best, const RoutedInstance& instance, const RoutedLayout& layout);

// Disjoint replicas: the best pipeline of the hosts left, taken again and again while one fits,
// starting from all hosts, from every host that holds the whole model alone, or from chains of
// hosts of one kind (the best of the three).
Chains greedy_replicas(const RoutedInstance& instance);

}  // namespace meshplan
