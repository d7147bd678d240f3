// What every pipeline search shares (exact search, heuristic, fixed-sequence DP): the candidate
// hosts' per-layer time prefix sums, the hop matrix, for every host and end layer the lowest
// start layer whose range still fits its memory, and the user's constraints (pins, the number of
// hosts). Search results are assignments that PipelineCostModel::evaluate() confirms.
//
// The searches place the embedding and LM head on rank 0. When the cost model puts them on the
// last rank instead (llama.cpp RPC), the space shows the searches the pipeline backwards: its
// layer l is the model's layer L-1-l and its hop a -> b the model's b -> a, so that its rank 0 is
// the model's last rank; to_layers() turns a search's assignment back into the model's order.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "solvers/problem/pipeline_cost.hpp"

namespace meshplan {

// A host (index into the cost model) that must run exactly layers [start, end).
struct RangePin {
  size_t host = 0;
  int start = 0;
  int end = 0;
};

struct PipelineConstraints {
  int min_hosts = 1;
  int max_hosts = 0;  // 0: no limit
  std::vector<RangePin> pins;
  // The one host that may hold embedding and LM head (llama.cpp RPC's main host); none: any.
  std::optional<size_t> head_host;
};

// The outcome of a search: the best assignment found and what is known about it.
struct SearchResult {
  bool feasible = false;
  PipelineAssignment assignment;
  double latency_s = kInfinity;  // as the search summed it (evaluate() is the reference)
  bool exact = false;            // the whole search space was covered: the assignment is optimal
  std::string method;
  long long states = 0;  // DP rows or sequences evaluated, for reports
};

class SearchSpace {
 public:
  // Pins must name distinct hosts with non-overlapping ranges inside [0, L) (checked by the
  // caller; violations here are internal errors).
  SearchSpace(const PipelineCostModel& cost, PipelineConstraints constraints);

  const PipelineCostModel& cost() const { return *cost_; }
  size_t num_hosts() const { return n_; }
  int num_layers() const { return L_; }
  int min_hosts() const { return min_hosts_; }
  int max_hosts() const { return max_hosts_; }  // resolved: at most the number of hosts

  // Decode time of layers [0, l) on host h.
  double prefix(size_t h, int l) const { return prefix_[h * stride_ + static_cast<size_t>(l)]; }
  double overhead(size_t h) const { return overhead_[h]; }
  double head_time(size_t h) const { return head_time_[h]; }
  // Stage time of [s, e) on h (s < e).
  double stage(size_t h, int s, int e) const { return prefix(h, e) - prefix(h, s) + overhead_[h]; }
  // Hop time from a to b; infinity without a usable link (and for a == b).
  double hop(size_t a, size_t b) const { return hop_[a * n_ + b]; }
  double min_hop_out(size_t h) const { return min_out_[h]; }
  double min_hop_in(size_t h) const { return min_in_[h]; }

  // The lowest start s such that an unpinned host h may run [s, end) (memory, and no pinned layer
  // inside); `end` when none. Non-decreasing in `end`.
  int lowest_start(size_t h, int end, bool head) const {
    return lowest_[(h * 2 + (head ? 1 : 0)) * stride_ + static_cast<size_t>(end)];
  }
  // The pinned range of h, if any.
  const std::optional<std::pair<int, int>>& pin(size_t h) const { return pin_[h]; }
  bool any_pins() const { return any_pins_; }
  // Whether h may run [s, e) at ring position 0 (head) or later.
  bool range_ok(size_t h, int s, int e, bool head) const;
  // Whether h may be rank 0 at all: the head host if one is set, and a pinned host only when
  // its pin starts at layer 0.
  bool can_head(size_t h) const {
    return (!head_host_ || *head_host_ == h) && (!pin_[h] || pin_[h]->first == 0);
  }
  // Whether the space runs the model's layers backwards (head on the model's last rank).
  bool reversed() const { return reversed_; }
  // A search's assignment in the cost model's rank and layer order.
  PipelineAssignment to_layers(const PipelineAssignment& a) const;

  // Resident bytes (weights and KV) of layers [l, L), for capacity pruning.
  double rest_memory(int l) const { return rest_memory_[static_cast<size_t>(l)]; }
  // Sum over layers l' >= l of the fastest host's time for l': no host runs them faster.
  double rest_time(int l) const { return rest_time_[static_cast<size_t>(l)]; }
  double min_overhead() const { return min_overhead_; }

  // Sums stage, head and hop times of an assignment the way the searches do (no feasibility check).
  double latency(const PipelineAssignment& a) const;

 private:
  // Resident bytes of the space's layers [s, e), plus the head when `head`.
  double memory(int s, int e, bool head) const;

  const PipelineCostModel* cost_;
  size_t n_;
  int L_;
  size_t stride_;
  int min_hosts_;
  int max_hosts_;
  bool any_pins_ = false;
  bool reversed_ = false;
  std::optional<size_t> head_host_;
  std::vector<double> prefix_;
  std::vector<double> overhead_;
  std::vector<double> head_time_;
  std::vector<double> hop_;
  std::vector<double> min_out_;
  std::vector<double> min_in_;
  std::vector<int> lowest_;
  std::vector<std::optional<std::pair<int, int>>> pin_;
  std::vector<double> rest_memory_;
  std::vector<double> rest_time_;
  double min_overhead_ = 0;
};

}  // namespace meshplan
