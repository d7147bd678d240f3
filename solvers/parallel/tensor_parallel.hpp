// Tensor parallel (SPEC section 7): every rank of a group holds a share s_i of every layer's
// weights (whole attention heads, the MLP and experts split in the same proportion) and the KV
// heads its attention heads use; each layer costs its slowest rank plus two all-reduces of 2h
// bytes over the group's worst link. The embedding and LM head are replicated: every rank holds
// them and computes the logits itself, as MLX and exo do. One stage overhead per token.
//
// Shares are equal by default and need the head counts to divide (num_heads % p == 0 and
// num_kv_heads % p == 0, the rule MLX and exo enforce); with --allow-uneven they are whole heads
// in proportion to each rank's speed under its memory (an engine must support uneven shards).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "lib/core/clock.hpp"
#include "lib/models/model.hpp"
#include "solvers/parallel/group_plan.hpp"
#include "solvers/problem/allreduce_paths.hpp"
#include "solvers/problem/plan_inputs.hpp"
#include "solvers/problem/plan_request.hpp"
#include "solvers/problem/planning_problem.hpp"

namespace meshplan {

struct TensorShares {
  std::vector<int> heads;           // attention heads per rank, in rank order
  std::vector<double> share;        // heads / num_heads: the share of every weight matrix
  std::vector<double> kv_fraction;  // share of the KV cache held (>= share; 1 for a latent cache)
  bool uneven = false;
};

struct TensorEvaluation : GroupEvaluation {
  bool feasible = true;
  std::string shortfall;  // which rank does not fit, by how much
};

class TensorCostModel {
 public:
  TensorCostModel(const ModelDesc& model, const PlanInputs& inputs, int64_t context,
                  int64_t prompt);

  int heads() const { return heads_; }
  // True when the KV cache is a latent shared by all heads (MLA): every rank holds all of it.
  bool latent_kv() const { return latent_kv_; }
  // Equal shares over p ranks are possible (head and KV-head counts divisible).
  bool divisible(size_t p) const;
  // Shares of contiguous head ranges, rank 0 first.
  TensorShares shares_from_heads(std::vector<int> heads) const;
  TensorShares equal_shares(size_t p) const;
  // Whole-head shares that minimise the time per token under memory (greedy, then moves of one
  // head); nullopt when no split fits.
  std::optional<TensorShares> uneven_shares(const CollectivePath& path) const;

  TensorEvaluation evaluate(const CollectivePath& path, const TensorShares& shares) const;
  // A lower bound on any split over this group: real-valued shares, no memory limits.
  double lower_bound(const CollectivePath& path) const;
  // A lower bound on any group of the candidates: all of them sharing the layers, no collective,
  // the fastest head.
  double lower_bound_any_group() const;
  // Bytes every rank holds besides its share (embedding, LM head), and the sharded bytes.
  double replicated_bytes() const;
  double sharded_bytes() const { return weights_; }
  double kv_total_bytes() const { return kv_total_; }
  double message_bytes() const { return message_; }
  int num_layers() const { return model_->num_layers(); }

 private:
  struct LayerClass {
    double count = 0, flops = 0, read = 0, kv = 0;  // decode: kv = kappa * tokens held
    double moe = 0;                                 // 1: a mixture-of-experts layer
    double prefill_flops = 0, prefill_read = 0, prefill_kv = 0;
  };
  double layer_time(size_t host, const LayerClass& c, double share, double kv) const;
  double layers_time(const CollectivePath& path, const TensorShares& s) const;
  std::vector<double> memory(const CollectivePath& path, const TensorShares& s) const;
  double head_time(size_t host) const;
  double fixed_time(const CollectivePath& path) const;  // collectives + head + overhead
  double shared_layers_bound(const std::vector<size_t>& hosts) const;

  const ModelDesc* model_;
  const PlanInputs* in_;
  int64_t prompt_;
  int heads_;
  bool latent_kv_;
  double weights_ = 0, kv_total_ = 0, message_ = 0;
  std::vector<LayerClass> classes_;
};

// The fastest tensor-parallel plan within --hosts/--min-hosts/--max-hosts, or why none exists.
StrategyOutcome plan_tensor(const PlanningProblem& problem, const Clock& clock);

}  // namespace meshplan
