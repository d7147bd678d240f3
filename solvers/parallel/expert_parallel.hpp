// Expert parallel for mixture-of-experts models (SPEC section 7): every rank of a group holds the
// non-expert weights, the dense layers, the embedding and LM head and the whole KV cache and runs
// them itself; each MoE layer's routed experts are spread over the ranks (with copies of the
// busiest where memory allows, solvers/expert_placement.hpp). Per MoE layer:
//   max_i [non-expert time_i + K * (load share of i's experts) * expert time_i] + exchange,
// the exchange being 2(lambda + 2h/beta) over the group's worst link on a JACCL mesh and a ring
// all-reduce on a ring. Dense layers (DeepSeek's first three) run replicated with no exchange.
// Every rank holds the same number of experts in every MoE layer: what its memory leaves after
// the replicated part, divided by one expert of every MoE layer.
#pragma once

#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "lib/core/clock.hpp"
#include "lib/models/model.hpp"
#include "solvers/parallel/expert_placement.hpp"
#include "solvers/parallel/group_plan.hpp"
#include "solvers/problem/allreduce_paths.hpp"
#include "solvers/problem/plan_inputs.hpp"
#include "solvers/problem/plan_request.hpp"
#include "solvers/problem/planning_problem.hpp"

namespace meshplan {

class ExpertCostModel {
 public:
  ExpertCostModel(const ModelDesc& model, const PlanInputs& inputs, const PlanRequest& request);

  // Bytes every rank holds before experts, and one expert of every MoE layer.
  double replicated_bytes() const { return replicated_; }
  double slot_bytes() const { return slot_bytes_; }
  // Experts per MoE layer host i can hold (may be negative: not even the replicated part fits).
  long capacity(size_t host) const;
  int max_experts() const { return max_experts_; }
  size_t num_instances() const { return instances_.size(); }
  size_t moe_layers() const { return moe_layers_.size(); }
  const std::vector<int>& layers_of(size_t instance) const { return instances_[instance].layers; }

  // The placement problem of one distinct MoE layer on a group, in rank order.
  ExpertInstance instance(const std::vector<size_t>& ranks, size_t which) const;
  // A lower bound on the time per token over this group (any placement) and over any group.
  double lower_bound(const CollectivePath& path) const;
  double lower_bound_any_group() const;
  // No group of `ranks` hosts exchanges faster than its collective's hops at the cluster's lowest
  // link latency: two for a JACCL mesh (at most kJacclMaxRanks ranks), 2 (ranks - 1) for a ring,
  // once per MoE layer. A floor under lower_bound() of every group of that size, rising with it.
  double exchange_floor(int ranks) const;

  using Evaluation = GroupEvaluation;  // collective_s: the expert exchanges
  // `placements[k]`: the placement of instance k on path.order.
  Evaluation evaluate(const CollectivePath& path,
                      const std::vector<ExpertPlacement>& placements) const;
  double message_bytes() const { return message_; }

 private:
  struct MoeClass {
    int experts = 0, per_token = 0;
    double base_flops = 0, base_read = 0, expert_flops = 0, expert_bytes = 0;
    double prefill_base_flops = 0, prefill_base_read = 0;
  };
  struct Instance {
    size_t moe_class = 0;
    int distribution = -1;  // -1: uniform
    std::vector<int> layers;
    std::vector<double> sorted_prefix;
  };
  std::vector<ExpertHost> ranks_of(const std::vector<size_t>& ranks, const MoeClass& c) const;
  template <typename Floor>
  double moe_bound(const std::vector<size_t>& ranks, Floor floor_of) const;
  double base_time(size_t host, const MoeClass& c) const;
  double expert_time(size_t host, const MoeClass& c) const;
  double dense_time(size_t host) const;
  double dense_prefill_time(size_t host) const;
  double head_time(size_t host) const;
  const std::vector<double>& load(const Instance& i) const;

  const ModelDesc* model_;
  const PlanInputs* in_;
  const PlanRequest* request_;
  double replicated_ = 0, slot_bytes_ = 0, kv_total_ = 0, message_ = 0;
  double least_latency_ = std::numeric_limits<double>::infinity();  // of any link, for the floor
  int max_experts_ = 0;
  std::vector<int> moe_layers_;
  std::vector<MoeClass> classes_;
  std::vector<Instance> instances_;
  std::vector<int> dense_layers_;
  std::map<int, std::vector<double>> uniform_;  // experts -> uniform load
};

// The fastest expert-parallel plan within --hosts/--min-hosts/--max-hosts, or why none exists.
// `request.solver == "ilp"` solves each distinct layer of the chosen group exactly with GLPK.
StrategyOutcome plan_expert(const PlanningProblem& problem, const Clock& clock);

}  // namespace meshplan
