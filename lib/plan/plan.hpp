// A placement plan (meshplan.plan/2): who runs what, with the figures used to predict its speed,
// its lower bound, baselines and the alternatives considered.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "lib/cluster/cluster_print.hpp"

namespace meshplan {

inline constexpr const char* kPlanSchema = "meshplan.plan/2";

struct HopInfo {
  std::string kind;  // link figures name: "tb5-rdma", "10gbe", ...
  double latency_s = 0;
  double bandwidth = 0;  // bytes/s
  double time_s = 0;     // latency + activation bytes / bandwidth
};

// How the ranks of a tensor- or expert-parallel plan exchange activations: the collective's kind
// and the worst link of the group, which sets its pace.
struct CollectiveInfo {
  std::string kind;  // "JACCL mesh", "JACCL ring", "TCP ring"
  std::string link;  // figures name of the worst link: "tb5-rdma", "10gbe", ...
  double latency_s = 0;
  double peer_s = 0;       // a JACCL mesh's cost per peer of each exchange (0 otherwise)
  double bandwidth = 0;    // bytes/s
  double per_layer_s = 0;  // collectives of one layer
  int layers = 0;          // layers that pay it
  double total_s = 0;      // per token
};

struct RankPlan {
  int rank = 0;
  std::string host;
  int layer_start = 0;  // [start, end)
  int layer_end = 0;
  std::optional<double> share;            // tensor parallel share of every layer
  std::vector<std::vector<int>> experts;  // expert parallel: per MoE layer, the experts held
  bool holds_head = false;                // embedding and LM head live here
  double weight_bytes = 0;
  double kv_bytes = 0;
  double total_bytes = 0;
  double usable_bytes = 0;
  double bandwidth = 0;  // effective bytes/s
  double flops = 0;      // effective FLOP/s
  double stage_s = 0;
  // A host of several GPUs splits its layers over them: the in-host all-reduces of one layer cost
  // gpu_collective_s for one stream and gpu_collective_per_stream_s more for each further one.
  double gpu_collective_s = 0;
  double gpu_collective_per_stream_s = 0;
  std::optional<HopInfo> hop_to_next;
  // A host of several GPUs: each layer split over tp of them, and its layers over gpu_stages
  // groups of tp GPUs run one after another (each group's devices named "host/gpuN").
  int tp = 1;
  struct GpuStage {
    std::vector<std::string> devices;
    int layer_start = 0, layer_end = 0;
    double bytes_per_gpu = 0;   // its share of weights and KV (and the embedding and head)
    double usable_per_gpu = 0;  // what one of its GPUs can hold
  };
  std::vector<GpuStage> gpu_stages;
  // A hybrid plan's group of hosts that splits these layers tensor-parallel, each holding `share`
  // of them (this host included, in the group's order); empty outside such a group.
  std::vector<std::string> tp_group;
  // A Mac whose default GPU wired limit is below what this rank holds: the iogpu.wired_limit_mb
  // to set before loading (`meshplan setup --plan` prints it); 0 when none is needed.
  int64_t wired_limit_mb = 0;
};

struct Prediction {
  double token_latency_s = 0;
  double decode_tokens_per_s = 0;
  double ttft_s = 0;
  std::string bottleneck;
  double stages_s = 0;  // sum of stage times
  double head_s = 0;    // LM head on rank 0
  double hops_s = 0;    // sum of hop times
};

struct BoundInfo {
  double token_latency_s = 0;
  double gap_percent = 0;
  std::string method;
};

struct BaselineInfo {
  std::string solver;  // "proportional", "single-host"
  bool feasible = false;
  double token_latency_s = 0;
  double decode_tokens_per_s = 0;
  double speedup = 0;  // this plan's tokens/s over the baseline's
  std::vector<std::string> hosts;
  std::string note;  // why it is infeasible, when it is
};

struct SolverInfo {
  std::string name;
  bool optimal = false;
  double solve_ms = 0;
  std::string note;
};

struct Alternative {
  std::string strategy;
  bool feasible = false;
  double token_latency_s = 0;
  double decode_tokens_per_s = 0;
  std::string backend;
  std::vector<std::string> hosts;
  std::string reason;  // why it was not possible or not chosen
};

// A candidate host's figures as the cost model used them (every candidate, used or not).
struct HostInfo {
  std::string name;
  double usable_bytes = 0;
  double bandwidth = 0;  // effective bytes/s
  double flops = 0;      // effective FLOP/s
  double overhead_s = 0;
  std::string usable_rule;
  bool used = false;
  std::string left_out;  // why a candidate the plan does not use was left out
  int gpus = 1;          // several: each layer split over them, all-reducing over gpu_link
  int tp = 1;            // the GPUs each layer is split over (the plan's choice; gpus otherwise)
  std::string gpu_link;
};

// Serving under a load (--concurrency, --rate, --objective, --ttft-ms, --tpot-ms): the requests
// in flight over every replica, each replica's streams decoded together (one step reads its
// weights once for all of them, and each stream's KV), prefills holding the decode meanwhile.
struct ServingInfo {
  std::string objective;  // "latency" or "throughput"
  std::string load;       // "closed" (requests in flight, each finished one replaced) or "poisson"
  double ttft_target_s = 0, tpot_target_s = 0;  // 0: none
  int requests_in_flight = 1;      // over every replica (poisson: the mean, rounded up)
  int max_requests_in_flight = 1;  // the most whose KV fits beside the weights, every replica
  double requests_per_s = 0;       // finished (closed) or arriving (poisson), every replica
  int64_t prompt_tokens = 0, output_tokens = 0;
  std::string bound_by;            // what stops more requests helping: memory, compute or bandwidth
  double step_s = 0;               // one decode step of a replica's streams (the slowest replica's)
  double stream_tokens_per_s = 0;  // one stream while decoding: 1 / step
  double aggregate_tokens_per_s = 0;  // decode tokens/s over every replica
  double output_tokens_per_s = 0;     // requests_per_s x output tokens
  double ttft_s = 0, tpot_s = 0;      // mean per request under the load (the slowest replica's)
  // One request's mean time: its first token, then the others one per tpot.
  double request_s() const {
    return ttft_s + static_cast<double>(std::max<int64_t>(output_tokens - 1, 0)) * tpot_s;
  }
  double kv_bytes = 0;                      // KV of the streams of one replica at the context
  double bound_aggregate_tokens_per_s = 0;  // upper bound: every candidate's FLOP/s and bandwidth
  std::string bound_method;
};

// One copy of the model on a group of hosts, and the part of the requests it should get.
struct ReplicaInfo {
  std::vector<std::string> hosts;
  std::string strategy;
  std::string backend;
  int requests_in_flight = 1;  // its part of the load
  double requests_per_s = 0;
  double ttft_s = 0, tpot_s = 0;
  double stream_tokens_per_s = 0;
  double aggregate_tokens_per_s = 0;
  double request_share = 0;  // its requests a second over every replica's: the balancer's weight
  std::vector<RankPlan> ranks;
};

// One serving shape compared for end-to-end time per request (prompt then output tokens).
struct ShapeInfo {
  std::string shape;  // "single", "pipeline", "disaggregated"
  std::vector<std::string> prefill_hosts;
  std::vector<std::string> decode_hosts;
  double ttft_s = 0;
  double kv_transfer_s = 0;  // disaggregated: KV bytes over the link, overlapped with prefill
  double decode_tokens_per_s = 0;
  double end_to_end_s = 0;
  bool chosen = false;
};

// The serving frontier (plan --frontier): for each shape the engine runs, what every stream and
// all of them together get as the load grows.
struct FrontierPoint {
  int requests_in_flight = 1;
  double stream_tokens_per_s = 0;  // 1 / the mean time per output token under the load
  double aggregate_tokens_per_s = 0;
  double ttft_s = 0;
  bool meets_targets = true;
};
struct FrontierSeries {
  std::string shape;  // "tensor over a+b", "one copy on a", "replicas", "prefill a, decode b"
  std::vector<std::string> hosts;
  std::vector<FrontierPoint> points;
};
struct Frontier {
  std::vector<FrontierSeries> series;
  std::string chosen_shape;  // the plan's own, and its point under the request's load
  FrontierPoint chosen;
};

// Routed serving (--strategy routed): every host's layer range and the tokens/s it carries, and
// the flow on every link used, which a request scheduler follows as weights.
struct RoutedHostInfo {
  std::string host;
  int layer_start = 0;  // [start, end)
  int layer_end = 0;
  double capacity = 0;  // tokens/s its table gives for its range (with the LM head if it ends)
  double flow = 0;      // tokens/s it carries
  double entry = 0;     // of which requests entering at the first layer here
  double exit = 0;      // of which tokens leaving the last layer here
  std::string table;    // where its table came from: "cost model", "profile host NAME", ...
};
struct RoutedLinkInfo {
  std::string from, to;
  double flow = 0;      // tokens/s
  double capacity = 0;  // bandwidth over one token's activations
};
struct RoutingInfo {
  int streams = 1;  // streams each host decodes together, as its table was made for
  std::vector<RoutedHostInfo> hosts;
  std::vector<RoutedLinkInfo> links;
  bool optimal = false;
  std::string proof;
  int64_t nodes = 0;
};

struct Plan {
  std::string model_name;
  std::string quantization;
  int num_layers = 0;
  // What the engines' rules read (lib/core/engine_rules.hpp): heads, hidden size, routed experts.
  int attention_heads = 0;
  int kv_heads = 0;
  int hidden_size = 0;
  int routed_experts = 0;
  uint64_t total_bytes = 0;
  int64_t context = 0;
  int64_t prompt = 0;
  std::string strategy;   // "pipeline", "tensor", "expert"
  std::string backend;    // "jaccl", "jaccl-ring", "ring", "ethernet", "none"
  std::string transport;  // what the prediction assumed: "rdma", "thunderbolt", "network", "local"
  std::vector<RankPlan> ranks;
  Prediction predicted;
  std::optional<BoundInfo> bound;
  std::optional<CollectiveInfo> collective;  // tensor and expert plans
  std::vector<BaselineInfo> baselines;
  SolverInfo solver;
  std::vector<Alternative> alternatives;
  std::vector<std::string> notes;
  std::vector<HostInfo> hosts;  // every candidate host
  double stage_overhead_s = 0;
  double activation_bytes = 0;  // per token crossing a hop (2h)
  ClusterPrint cluster;         // the hardware the plan was made for (its hosts, their links)
  // Serving, present only when asked for (--concurrency, --objective, --workload, long prompts).
  std::optional<ServingInfo> serving;
  std::vector<ReplicaInfo> replicas;   // two or more when the hosts are split into copies
  std::vector<ShapeInfo> shapes;       // prefill/decode shapes compared, the chosen one marked
  int64_t output_tokens = 0;           // with shapes: tokens generated per request
  std::optional<RoutingInfo> routing;  // --strategy routed
  std::optional<Frontier> frontier;    // plan --frontier
  // The engine the plan is made for (lib/plan/engines.hpp), "" when none runs it, and why it
  // (or none) was chosen: "asked for", "every host is a Mac", ...
  std::string engine;
  std::string engine_reason;
};

}  // namespace meshplan
