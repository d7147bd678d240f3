// Placing one MoE layer's routed experts on the ranks of an expert-parallel group, with replicas
// of the most loaded experts where memory allows (DeepSeek's EPLB, github.com/deepseek-ai/EPLB,
// generalised to unequal hosts):
//   1. replication: for a budget of extra copies, each goes to the expert with the largest load
//      per copy (EPLB's replicate_experts); budgets from none to every free slot are tried;
//   2. packing: copies by decreasing load, each on the rank where the layer would finish
//      earliest (related-machines LPT) among ranks with a free slot not holding that expert;
//   3. local search: moves and swaps off the slowest rank while they shorten it.
// A rank's layer time is base_i + K * load_i * expert_i, where load_i sums load_e / copies_e
// over the experts it holds (tokens are spread evenly over an expert's copies).
#pragma once

#include <optional>
#include <vector>

namespace meshplan {

struct ExpertHost {
  double base_s =
      0;  // the layer's non-expert work on this rank (attention, router, shared experts)
  double expert_s = 0;  // one routed expert for one token on this rank
  int capacity = 0;     // experts of this layer the rank can hold
};

struct ExpertInstance {
  std::vector<double> load;   // per expert: share of the routed tokens, summing to 1
  int experts_per_token = 1;  // K
  std::vector<ExpertHost> hosts;
};

struct ExpertPlacement {
  std::vector<std::vector<int>> experts;  // per rank, sorted expert ids
  double makespan = 0;                    // the slowest rank's layer time
  double lower_bound = 0;                 // no placement of this instance is faster
};

// Each rank's layer time under a placement (experts held at most once per rank; every expert
// somewhere).
std::vector<double> rank_times(const ExpertInstance& inst,
                               const std::vector<std::vector<int>>& experts);
double placement_makespan(const ExpertInstance& inst, const std::vector<std::vector<int>>& experts);

// max over ranks of the non-expert time, and the fluid bound: the routed load spread as if
// divisible, no rank taking more than its `capacity` heaviest experts.
double expert_lower_bound(const ExpertInstance& inst);
// The same from the loads' prefix sums in decreasing order (sorted_prefix[k]: the k heaviest) and
// a floor on the layer time (expert_lower_bound uses the ranks' largest non-expert time).
double expert_lower_bound(const std::vector<ExpertHost>& hosts, int experts_per_token,
                          const std::vector<double>& sorted_prefix, double floor);

// The heuristic placement; nullopt when the ranks cannot hold every expert once.
std::optional<ExpertPlacement> place_experts(const ExpertInstance& inst);

}  // namespace meshplan
