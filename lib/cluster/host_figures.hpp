// What the cost model needs to know about a host, resolved from the cluster file, its overrides
// and the catalog: usable bytes, effective memory bandwidth and FLOP/s, per-stage overhead.
#pragma once

#include <string>
#include <vector>

#include "lib/cluster/catalog.hpp"
#include "lib/cluster/cluster.hpp"

namespace meshplan {

struct HostFigures {
  std::string name;
  double usable_bytes = 0;   // R_i: bytes for weights and KV cache
  double bandwidth = 0;      // BW_i: effective bytes/s
  double flops = 0;          // F_i: effective FLOP/s of a decode step's products
  double prefill_flops = 0;  // effective FLOP/s of a prompt's (prompt-sized) products
  double overhead_s = 0;     // o: per pipeline stage per token
  // No GPU and not a Mac (host_platform's CPU host, as the llama-rpc writer decides it): engines
  // run its layers on its CPU, llama.cpp's main host through an rpc-server of its own.
  bool cpu_only = false;
  // Per layer, whatever its share of the bytes: the kernels' minimum times (launches inside a
  // CUDA graph, norms, small products), which tensor parallelism does not divide.
  double layer_overhead_s = 0;
  double moe_layer_overhead_s = 0;  // what a mixture-of-experts layer adds to that (routing)
  double spec_bandwidth = 0;        // before efficiency
  double spec_flops = 0;            // FP16 peak (spec_flops x prefill efficiency = prefill_flops)
  double bandwidth_efficiency = 0;
  double flops_efficiency = 0;  // of the decode peak: flops = that peak x this
  std::string usable_rule;      // how usable_bytes was obtained, for reports
  // A Mac whose iogpu.wired_limit_mb is unset: what macOS lets the GPU wire by default (a plan
  // needing more tells the user to raise the limit to usable_bytes). 0 = no such limit applies.
  double default_wired_bytes = 0;
  // A host with several GPUs splits each of its layers tensor-parallel over groups of `tp` of
  // them, as vLLM and its peers do inside a node: weights and KV are shared out, and every layer
  // adds two all-reduces of the activations over the slowest link inside a group. With tp below
  // gpus the groups run as gpu_stages pipeline stages inside the host (at_tensor_degree); the
  // figures above are then one group's, and overhead_s pays every inner stage.
  int gpus = 1;
  int tp = 1;
  int gpu_stages = 1;
  std::string gpu_link;           // that link as nvidia-smi topo -m names it ("NV18", "PIX", "SYS")
  double gpu_link_latency_s = 0;  // once per all-reduce
  double gpu_link_step_s = 0;     // per ring step; an all-reduce over d GPUs takes 2(d-1)
  double gpu_link_bandwidth = 0;  // bytes/s between two GPUs
  double activation_bytes = 2;    // per value, from the catalog
  // The slowest link inside groups of d consecutive GPUs, for each d > 1 the host divides into
  // (powers of two and the whole host), ascending.
  struct GroupLink {
    int tp = 0;
    std::string link;
    double latency_s = 0, step_s = 0, bandwidth = 0;
    bool operator==(const GroupLink&) const = default;
  };
  std::vector<GroupLink> group_links;
  // The embedding and LM head run slower than the layers where a group of hosts replicates them
  // (a hybrid plan's tensor-parallel group: each host computes the head at its own pace). 0 = at
  // the figures above.
  double head_bandwidth = 0;
  double head_flops = 0;
  bool operator==(const HostFigures&) const = default;
};

// Seconds the in-host all-reduces add to one layer for `tokens` tokens (streams at decode, the
// prompt at prefill); 0 without tensor parallelism. A ring all-reduce over d GPUs costs the
// link's latency once and 2(d-1) steps, each a step latency and 1/d of the 2*hidden bytes per
// token; two per layer.
double in_host_collectives_s(const HostFigures& h, int64_t hidden_size, double tokens);
// What each further token adds to that (its bytes over the link); 0 for one device.
double in_host_per_token_s(const HostFigures& h, int64_t hidden_size);
// What a layer costs on the host beyond its bytes and FLOPs: its fixed kernel time (more for a
// mixture-of-experts layer; `moe` is 1 for one, or the share of such layers in an average) and
// the in-host all-reduces. Every strategy adds it per layer.
double layer_extra_s(const HostFigures& h, int64_t hidden_size, double tokens, double moe = 0);

// The tensor-parallel degrees a host can run a model at, widest first: the whole host, then each
// smaller group size of group_links, then 1; a degree must divide the attention heads, and the
// KV heads or be a multiple of them (vLLM's rule). A host of one device has only 1.
std::vector<int> tensor_degrees(const HostFigures& h, int heads, int kv_heads);
// The host run as gpus/tp inner pipeline stages of tp GPUs each: one group's bandwidth and FLOP/s
// (a token passes the stages one after another), every stage's overhead, the group's link.
// tp must be one of tensor_degrees.
HostFigures at_tensor_degree(const HostFigures& h, int tp);

// Throws an input error naming the host when a figure cannot be known (no chip and no override,
// no memory size).
HostFigures host_figures(const Host& host, const Catalog& catalog);

}  // namespace meshplan
