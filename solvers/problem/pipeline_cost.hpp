// Cost model v1 (SPEC section 7), pipeline part: memory per stage, stage time, hops, LM head and
// TTFT, with per-host prefix sums so that any contiguous layer range costs O(1).
#pragma once

#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "lib/cluster/host_figures.hpp"
#include "lib/cluster/link_graph.hpp"
#include "lib/models/model.hpp"
#include "lib/plan/plan.hpp"
#include "solvers/problem/link_matrix.hpp"

namespace meshplan {

inline constexpr double kInfinity = std::numeric_limits<double>::infinity();

// Hosts in ring order with contiguous layer ranges; the head rank (PipelineCostModel::head_rank)
// holds embedding and LM head.
struct PipelineAssignment {
  std::vector<size_t> order;  // indices into the cost model's hosts
  std::vector<int> cuts;      // size order.size() + 1: rank j runs [cuts[j], cuts[j+1])
};

struct PipelineEvaluation {
  bool feasible = true;
  std::string shortfall;  // why not, naming host and bytes
  double token_latency_s = 0;
  double ttft_s = 0;
  std::vector<double> stage_s;
  std::vector<double> memory_bytes;
  std::vector<double> weight_bytes;
  std::vector<double> kv_bytes;
  std::vector<std::optional<LinkFigures>> hops;  // hop from rank j to j+1 (last: back to rank 0)
  size_t head_rank = 0;                          // the rank that holds embedding and LM head
  double head_s = 0;
  double hops_s = 0;
};

class PipelineCostModel {
 public:
  // `links[a][b]`: the best link between candidate hosts a and b for the chosen transport.
  // `head_last`: the embedding and LM head live on the last rank (llama.cpp RPC: the main host,
  // llama-server's, is the last device), not on rank 0.
  PipelineCostModel(const ModelDesc& model, std::vector<HostFigures> hosts, LinkMatrix links,
                    int64_t context, int64_t prompt, double activation_bytes_per_value,
                    bool head_last = false);

  size_t num_hosts() const { return hosts_.size(); }
  int num_layers() const { return num_layers_; }
  const HostFigures& host(size_t i) const { return hosts_[i]; }
  const ModelDesc& model() const { return *model_; }
  int64_t context() const { return context_; }
  int64_t prompt() const { return prompt_; }
  double activation_bytes() const { return activation_bytes_; }  // 2h per token
  bool head_last() const { return head_last_; }
  // The rank of a pipeline of `ranks` ranks that holds embedding and LM head.
  size_t head_rank(size_t ranks) const { return head_last_ && ranks > 0 ? ranks - 1 : 0; }

  // max(phi / F, (A + kappa * context) / BW) for one layer on one host, plus its in-host
  // all-reduces when it splits the layer over several GPUs.
  double layer_time(size_t host, int layer) const;
  // Decode time of layers [0, l) on a host, for l in [0, L]: the prefix sums behind stage_time.
  const std::vector<double>& time_prefix(size_t host) const {
    return time_prefix_[speed_kind_[host]];
  }
  // Sum of layer times over [start, end) plus the stage overhead (0 for an empty range).
  double stage_time(size_t host, int start, int end) const;
  // Weights and KV at the context over [start, end), plus the head when `head`.
  double stage_memory(int start, int end, bool head) const;
  double weight_bytes(int start, int end) const;
  double kv_bytes(int start, int end) const;
  double head_memory() const;
  double head_time(size_t host) const;
  // Hop time of one token's activations; infinity when a and b have no usable link.
  double hop_time(size_t a, size_t b) const;
  const std::optional<LinkFigures>& link(size_t a, size_t b) const { return links_.at(a, b); }
  const LinkMatrix& links() const { return links_; }
  // Per host, the least hop time to another host (`into`: from another); infinity without a link.
  std::vector<double> least_hops(bool into) const;
  // Prefill (TTFT) time of a stage for the prompt.
  double prefill_stage_time(size_t host, int start, int end) const;
  double prefill_hop_time(size_t a, size_t b) const;

  PipelineEvaluation evaluate(const PipelineAssignment& a) const;

 private:
  const ModelDesc* model_;
  std::vector<HostFigures> hosts_;
  LinkMatrix links_;
  int64_t context_;
  int64_t prompt_;
  int num_layers_;
  double activation_bytes_;
  bool head_last_;
  std::vector<size_t> speed_kind_;                   // per host: its row of the prefix sums
  std::vector<std::vector<double>> time_prefix_;     // [kind][l]: decode time of layers < l
  std::vector<std::vector<double>> prefill_prefix_;  // [kind][l]
  std::vector<double> weight_prefix_;
  std::vector<double> kv_prefix_;
};

}  // namespace meshplan
