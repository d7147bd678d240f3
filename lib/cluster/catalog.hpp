// The built-in hardware catalog: chips, machine models and the cost model's defaults, read from
// the embedded lib/data/*.json files. Every figure carries the name of its source.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "lib/cluster/cluster.hpp"

namespace meshplan {

struct ChipSpec {
  std::string key;                   // "m3-ultra-80c"
  std::string name;                  // "Apple M3 Ultra (80-core GPU)"
  std::string brand;                 // what the OS reports: "Apple M3 Ultra"
  std::vector<std::string> aliases;  // other names the same part reports (PCIe, Server editions)
  std::string vendor;                // "apple" or "nvidia"
  int gpu_cores = 0;
  double mem_bandwidth = 0;  // bytes/s (spec)
  double fp16_flops = 0;     // FLOP/s (spec, dense)
  // FLOP/s the products of a decode step reach for: the shader ALUs' peak where the spec counts
  // matrix units that decode-sized products do not use (M5 Neural Accelerators); else fp16_flops.
  double decode_flops = 0;
  uint64_t max_memory = 0;  // bytes
  uint64_t gpu_memory = 0;  // bytes per GPU, discrete GPUs only
  bool unified_memory = true;
  int thunderbolt = 0;  // generation the chip's Macs ship with
  std::string nvlink;   // NVLink generation of an NVIDIA GPU: "nvlink4"
  // How the GPUs of a host built around this part are joined when the cluster file does not say
  // (`nvidia-smi topo -m`'s word): "NV18" for SXM parts on NVSwitch; "" = PCIe.
  std::string gpu_fabric;
  // The share of mem_bandwidth a decode step reaches on this part when measured; 0 = the vendor's.
  double bandwidth_efficiency = 0;
  std::map<std::string, std::string> sources;  // figure -> source note
};

struct MachineSpec {
  std::string key;  // "mac-studio-m3-ultra"
  std::string name;
  std::vector<std::string> chips;
  std::vector<std::string> model_ids;  // sysctl hw.model values
  int tb_generation = 0;
  std::vector<std::string> tb_interfaces;  // interface of "Thunderbolt 1", "Thunderbolt 2", ...
  std::optional<LinkKind> ethernet;
  std::string management_interface;
  std::vector<uint64_t> memory_options;  // bytes, the sizes it is sold with, smallest first
  std::vector<std::string> sources;
};

struct Efficiency {
  double bandwidth = 0;
  double flops = 0;         // of fp16_flops, for prompt-sized products (prefill)
  double decode_flops = 0;  // of decode_flops, for a decode step's products (1 to a few dozen rows)
  std::string source;
  std::string decode_source;
};

struct LinkDefaults {
  double latency_s = 0;
  double bandwidth = 0;  // bytes/s
  std::string source;
};

// A link between two GPUs of one host (nvidia-smi topo -m): NVLink generations per link, PCIe and
// cross-socket paths per GPU pair. Bandwidth is per direction.
struct GpuLinkDefaults {
  double per_link = 0;    // bytes/s per NVLink (0 for PCIe paths)
  int links_per_gpu = 0;  // NVLinks a GPU of this generation has
  double bandwidth = 0;   // bytes/s between two GPUs for PCIe paths
  double latency_s = 0;   // once per all-reduce
  double step_s = 0;      // per ring step: an all-reduce over d GPUs has 2(d-1)
  std::string source;
};

// What macOS lets the GPU wire when iogpu.wired_limit_mb is unset (0).
struct WiredRule {
  double fraction = 0;        // of memory, on machines above small_max_bytes
  double small_fraction = 0;  // of memory, up to small_max_bytes
  double small_max_bytes = 0;
  std::string source;
  double limit(double memory) const {
    return memory * (memory <= small_max_bytes ? small_fraction : fraction);
  }
};

struct MemoryRule {
  double reserve_min_bytes = 0;
  double reserve_fraction = 0;
  std::string source;
};

class Catalog {
 public:
  // The catalog compiled into the binary.
  static const Catalog& builtin();

  const std::vector<ChipSpec>& chips() const { return chips_; }
  const std::vector<MachineSpec>& machines() const { return machines_; }
  const std::map<std::string, std::string>& chip_sources() const { return chip_sources_; }

  const ChipSpec* find_chip(std::string_view key) const;
  const MachineSpec* find_machine(std::string_view key) const;
  // The machine a chip ships in when a file names only the chip (first listed).
  const MachineSpec* default_machine(std::string_view chip_key) const;
  const MachineSpec* machine_for_model_id(std::string_view model_id) const;
  // "Apple M3 Ultra" with 80 GPU cores -> "m3-ultra-80c"; nullptr when unknown. With no core
  // count the largest bin is chosen.
  const ChipSpec* chip_for_brand(std::string_view brand, int gpu_cores) const;
  // " (did you mean ...?)" for a chip key or an OS-reported name that is not in the catalog:
  // the nearest keys for a key, the nearest reported names for a name ("Apple M5 Ultra").
  std::string suggest_chip(std::string_view word) const;
  std::string suggest_machine(std::string_view word) const;
  // Keys, comma-separated, for messages.
  std::string chip_keys() const;
  std::string machine_keys() const;

  const Efficiency& efficiency(std::string_view vendor) const;
  // o per pipeline stage per step: the vendor's own figure (NVIDIA: CUDA graphs), else the
  // default of SPEC section 7.
  double stage_overhead_s(std::string_view vendor = "") const;
  // The part of a layer's decode time that does not shrink with its bytes or its split: the
  // kernels' own minimum times (the vendor's figure; 0 where the model has none).
  double layer_overhead_s(std::string_view vendor = "") const;
  double moe_layer_overhead_s(std::string_view vendor = "") const;  // on top, per MoE layer
  // A JACCL mesh all-reduce is one exchange with every peer at once: the link's latency once,
  // and this for each peer, which grows with the message (one token's activations): the whole
  // buffer goes to every peer and comes back to be summed.
  double jaccl_mesh_peer_s(double message_bytes) const {
    return jaccl_mesh_peer_s_ * message_bytes / jaccl_mesh_peer_bytes_;
  }
  double jaccl_mesh_peer_bytes() const { return jaccl_mesh_peer_bytes_; }  // what the figure is for
  // What an engine adds to every hop between hosts of a pipeline (llama.cpp RPC's calls per
  // remote stage): `round_trips` times the link's call round trip (LinkFigures::call_round_trip_s)
  // and `stage_s` of processing; zero for an engine without a figure.
  struct EngineHop {
    double round_trips = 0;
    double stage_s = 0;
    double on(double call_round_trip_s) const { return round_trips * call_round_trip_s + stage_s; }
  };
  EngineHop engine_hop(std::string_view engine) const;
  // The share of a GPU's (or Mac's) effective bandwidth an engine's kernels reach on weights of
  // at most `max_bits` bits a weight (llama.cpp's 4-bit K-quants read slower than its 8-bit);
  // 1 for an engine without a figure, for wider weights, and on CPUs.
  struct EngineWeightReads {
    double max_bits = 0;
    double factor = 1;
    double at(double bits_per_weight) const { return bits_per_weight <= max_bits ? factor : 1; }
  };
  EngineWeightReads engine_weight_reads(std::string_view engine) const;
  // A small request's round trip between two processes of one host over 127.0.0.1.
  double loopback_round_trip_s() const { return loopback_round_trip_s_; }
  const std::map<std::string, EngineHop>& engine_hops() const { return engine_hop_; }
  double activation_bytes() const { return activation_bytes_; }
  const MemoryRule& unified_memory_rule() const { return unified_rule_; }
  const MemoryRule& discrete_memory_rule() const { return discrete_rule_; }
  const WiredRule& macos_wired_rule() const { return wired_rule_; }
  // Defaults of a link kind; `rdma` selects the RDMA figures of a TB5 cable.
  const LinkDefaults& link_defaults(LinkKind kind, bool rdma) const;
  double default_speed_gbps(LinkKind kind) const;
  // nvlink3, nvlink4, nvlink5, pcie4, pcie5, sys; nullptr for another name.
  const GpuLinkDefaults* gpu_link_defaults(std::string_view name) const;
  const std::map<std::string, GpuLinkDefaults>& gpu_links() const { return gpu_links_; }

 private:
  std::vector<ChipSpec> chips_;
  std::vector<MachineSpec> machines_;
  std::map<std::string, std::string> chip_sources_;
  std::map<std::string, Efficiency> efficiency_;
  std::map<std::string, LinkDefaults> links_;
  std::map<std::string, double> speeds_;
  std::map<std::string, GpuLinkDefaults> gpu_links_;
  double stage_overhead_s_ = 0;
  std::map<std::string, double> vendor_overhead_s_;
  std::map<std::string, double> vendor_layer_overhead_s_;
  std::map<std::string, double> vendor_moe_layer_overhead_s_;
  double jaccl_mesh_peer_s_ = 0;
  double jaccl_mesh_peer_bytes_ = 1;
  std::map<std::string, EngineHop> engine_hop_;
  std::map<std::string, EngineWeightReads> engine_weight_reads_;
  double loopback_round_trip_s_ = 0;
  double activation_bytes_ = 2;
  MemoryRule unified_rule_;
  MemoryRule discrete_rule_;
  WiredRule wired_rule_;

  friend Catalog load_catalog(std::string_view chips, std::string_view machines,
                              std::string_view defaults);
};

// Builds a catalog from the three JSON documents (used by builtin() and by tests).
Catalog load_catalog(std::string_view chips, std::string_view machines, std::string_view defaults);

}  // namespace meshplan
