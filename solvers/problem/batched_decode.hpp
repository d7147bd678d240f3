// Batched decode (SPEC section 7, "Serving"): N streams decoded together by one copy of the model.
// Per step each rank reads its weights once (for a mixture of experts, the union of the streams'
// experts: lib/models/step_reads.hpp) and every stream's KV, and computes for every stream;
// activations crossing hops and collectives scale with N. A pipeline keeps its ranks busy with
// up to one micro-batch per rank. The figures start from the strategy's own single-stream
// prediction and add what the extra streams cost, so N = 1 is exactly the plan's prediction.
#pragma once

#include "lib/models/model.hpp"
#include "lib/plan/plan.hpp"

namespace meshplan {

struct BatchedStep {
  int streams = 1;
  double round_s = 0;  // time between two tokens of one stream
  double stream_tokens_per_s = 0;
  double aggregate_tokens_per_s = 0;
  bool compute_bound = false;  // some rank's FLOPs outweigh its memory reads
};

class BatchedDecode {
 public:
  BatchedDecode(const Plan& plan, const ModelDesc& model);
  // The most streams whose KV at the context fits beside the weights on every rank (at least 1
  // for a feasible plan; capped at kMaxStreams).
  int max_streams() const { return max_streams_; }
  // The rank that runs out of memory first.
  const std::string& tightest_host() const { return tightest_; }
  BatchedStep at(int streams) const;
  double kv_bytes(int streams) const { return kv_per_stream_ * streams; }

  static constexpr int kMaxStreams = 4096;

 private:
  // Routed experts of one kind (E experts, K per token) a rank holds a part of: a step of n
  // streams reads bytes x (distinct experts - K) more than one stream's read.
  struct ExpertReads {
    int experts = 0, per_token = 0;
    double bytes = 0;  // the rank's part of one expert, summed over its layers of this kind
    double one = 0;    // distinct experts one stream reads
  };
  struct RankCost {
    double flops = 0, read = 0, kv = 0;  // per token / per step, one stream
    std::vector<ExpertReads> expert_reads;
    double head_flops = 0, head_read = 0;
    double F = 1, BW = 1;
    double stage_s = 0;
    double layers = 0, gpu_collective_s = 0, gpu_collective_per_stream_s = 0;  // in-host, per layer
    double hop_latency_s = 0, hop_bandwidth = 0;  // hop to the next rank, if any
    double one_s = 0, one_hop_s = 0;              // rank_time and hop_time of one stream
  };
  double rank_time(const RankCost& r, int n) const;   // compute/memory part of one rank, n streams
  static double step_read(const RankCost& r, int n);  // weights read in a step of n streams
  double hop_time(const RankCost& r, int n) const;
  bool pipeline_ = false;
  double token_latency_s_ = 0;
  double activation_bytes_ = 0;
  double collective_extra_per_stream_s_ = 0;  // bandwidth part of a token's collectives
  std::vector<RankCost> ranks_;
  int max_streams_ = 1;
  std::string tightest_;
  double kv_per_stream_ = 0;
  // The last pipeline round worked out, by ranks in use and streams per micro-batch.
  mutable int round_k_ = -1, round_b_ = -1;
  mutable double round_s_ = 0;
};

// What plans are compared by: one token's time, or with `throughput` the seconds per token of the
// streams decoded together (`concurrency` of them, or as many as fit when 0); infinite when the
// plan decodes nothing.
double objective_seconds(const Plan& plan, const ModelDesc& model, bool throughput,
                         int concurrency);

}  // namespace meshplan
