// The cluster: hosts, their Thunderbolt ports and interfaces, the cables and shared networks
// between them. One schema (meshplan.cluster/1) read from JSON or YAML, written as JSON.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "lib/cluster/link_kind.hpp"

namespace meshplan {

inline constexpr const char* kClusterSchema = "meshplan.cluster/1";

struct OsInfo {
  std::string kind;  // "macos", "linux" or "" (unknown)
  std::string version;
  std::string build;
  bool operator==(const OsInfo&) const = default;
};

struct Gpu {
  std::string name;
  std::string chip;  // catalog key when known, e.g. "h100-sxm"
  uint64_t memory = 0;
  std::string uuid;
  std::string pci_bus;
  std::string nic;  // the NIC nearest it (nvidia-smi topo -m): "mlx5_0", or "NIC0" without a legend
  // Its NVLinks that are up and the rate of one (nvidia-smi nvlink -s); 0 when not known.
  int nvlinks = 0;
  double nvlink_GBps = 0;
  bool operator==(const Gpu&) const = default;
};

// One Thunderbolt receptacle of a Mac.
struct ThunderboltPort {
  std::string id;           // receptacle id as macOS numbers it: "1".."6"
  int generation = 0;       // 5, 4 or 3; 0 when unknown
  double speed_gbps = 0;    // current link speed, 0 when nothing is connected
  std::string interface;    // BSD interface of "Thunderbolt <id>", e.g. "en2"
  std::string rdma_device;  // "rdma_en2" when ibv_devices lists it
  std::string rdma_state;   // ibv_devinfo port state, e.g. "PORT_ACTIVE", when probed
  std::string domain_uuid;
  std::string ipv4;  // address configured on the interface, with `prefix`
  int prefix = 0;
  bool operator==(const ThunderboltPort&) const = default;
};

struct NetInterface {
  std::string name;  // "en0"
  // "ethernet", "wifi", "thunderbolt", "bridge", "infiniband" (an IPoIB port such as ib0, its
  // HCA in rdma_device) or "other"
  std::string kind;
  std::string ipv4;
  int prefix = 0;
  double speed_gbps = 0;
  std::string mac;          // "b6:d4:2f:da:c0:d1" (Linux discovery)
  std::string state;        // operational state: "up", "down", ... (Linux discovery)
  std::string rdma_device;  // "mlx5_0" when /sys/class/infiniband names this interface
  int mtu = 0;              // bytes, 0 when unknown (Linux discovery reads it)
  bool operator==(const NetInterface&) const = default;
};

struct ThunderboltBridge {
  bool up = false;
  std::vector<std::string> members;  // interfaces enslaved to bridge0
  std::string ipv4;
  bool operator==(const ThunderboltBridge&) const = default;
};

struct Host {
  std::string name;
  std::string ssh;  // ssh target; empty means the name
  OsInfo os;
  std::string chip;      // catalog key, e.g. "m3-ultra-80c"; empty when unknown
  std::string machine;   // catalog machine key, e.g. "mac-studio-m3-ultra"; empty = chip default
  std::string hw_model;  // "Mac15,14" as sysctl hw.model reports it
  uint64_t memory = 0;
  std::optional<uint64_t> usable_memory;
  std::vector<Gpu> gpus;
  // How each pair of GPUs is joined, as `nvidia-smi topo -m` says: "NV18" (18 NVLinks), "PIX",
  // "PXB", "PHB", "NODE" or "SYS" (PCIe paths), "X" on the diagonal. Empty when unknown.
  std::vector<std::vector<std::string>> gpu_links;
  std::vector<ThunderboltPort> ports;
  std::vector<NetInterface> interfaces;
  std::optional<bool> rdma_enabled;
  std::optional<ThunderboltBridge> thunderbolt_bridge;
  std::optional<int64_t> wired_limit_mb;
  std::optional<double> disk_read;             // bytes/s
  std::optional<double> mem_bandwidth;         // bytes/s, spec figure (overrides the chip's)
  std::optional<double> flops;                 // FLOP/s FP16, spec figure (overrides the chip's)
  std::optional<double> bandwidth_efficiency;  // overrides the vendor default
  std::optional<double> stage_overhead_s;      // overrides the vendor's per-stage overhead
  // Override the catalog's figures for the links between its GPUs (every group of them).
  std::optional<double> gpu_link_latency_s;  // once per all-reduce
  std::optional<double> gpu_link_step_s;     // per ring step
  std::optional<double> gpu_link_bandwidth;  // bytes/s between two GPUs
  std::optional<double> flops_efficiency;
  std::optional<int> gpu_cores;
  // "2026-11-27" when mem_bandwidth, flops, stage_overhead_s or gpu_link_latency_s were measured
  // on the host (meshplan calibrate) rather than given by hand.
  std::string measured;
  // A Slurm node: found through Slurm (`discover --source scontrol`), launched through sbatch.
  bool slurm = false;

  const std::string& ssh_target() const { return ssh.empty() ? name : ssh; }
  const ThunderboltPort* find_port(std::string_view id) const;
  const ThunderboltPort* find_port_by_interface(std::string_view iface) const;
  const NetInterface* find_interface(std::string_view iface) const;
  bool operator==(const Host&) const = default;
};

struct Endpoint {
  std::string host;
  std::string port;  // receptacle id; empty for network cables without a Thunderbolt port
  // The network interface of a direct cable between Linux hosts ("enp1s0f0"); empty otherwise.
  std::string interface {};
  bool operator==(const Endpoint&) const = default;
};

// A point-to-point cable.
struct Cable {
  Endpoint a;
  Endpoint b;
  LinkKind kind = LinkKind::kTb5;
  double speed_gbps = 0;
  bool rdma = false;  // RDMA over Thunderbolt 5, RoCE or InfiniBand (true unless said for IB)
  std::optional<double> latency_us;      // overrides the kind's default
  std::optional<double> bandwidth_gbps;  // gigabits per second, overrides the kind's default
  // A small request's round trip between processes over TCP on this cable (calibrate): what each
  // RPC call costs beyond the data. Stands for the TCP latency (half of it) where latency_us
  // was not measured.
  std::optional<double> round_trip_us;
  // "2026-11-25" when latency, bandwidth or round trip were measured (check --measure, calibrate)
  std::string measured;
  bool operator==(const Cable&) const = default;
};

// A shared network (a switch): every listed host reaches every other.
struct Network {
  LinkKind kind = LinkKind::k10gbe;
  bool all_hosts = false;
  std::vector<std::string> hosts;
  std::string subnet;
  // RoCE (Ethernet) or InfiniBand RDMA between its hosts; the reader makes it true for
  // InfiniBand unless the file says otherwise.
  bool rdma = false;
  std::optional<double> latency_us;
  std::optional<double> bandwidth_gbps;
  bool contains(std::string_view host) const;
  bool operator==(const Network&) const = default;
};

// Facts discovery could not turn into cables: a cable seen from one side only, a peer that is
// not in the host list, a probe that failed. Kept in the file, never silently dropped.
struct Finding {
  std::string kind;  // "one-sided-cable", "unknown-peer", "probe-failed", ...
  std::string host;
  std::string port;
  std::string peer;
  std::string message;
  bool operator==(const Finding&) const = default;
};

// A generator entry of a hand-written file, expanded by topologies/ when the file is loaded.
struct GeneratorSpec {
  std::string topology;  // full-mesh, ring, chain, star, switch
  LinkKind kind = LinkKind::kTb5;
  bool rdma = false;
  bool all_hosts = false;
  std::vector<std::string> hosts;
  std::string center;  // star only
  std::string subnet;  // switch only
  std::optional<double> latency_us;
  std::optional<double> bandwidth_gbps;
  std::string where;    // source position, for messages
  size_t position = 0;  // cables listed before it in the file: its cables go there
  bool operator==(const GeneratorSpec&) const = default;
};

// Serving speed measured against a running endpoint (`meshplan measure`), one entry per level of
// concurrency: what `plan` prints beside its prediction for the same model, engine and hosts.
struct MeasuredServing {
  std::string date;                // "2026-11-27"
  std::string url;                 // the endpoint measured
  std::string engine;              // the plan's engine ("" when it named none)
  std::string model;               // the plan's model name
  std::vector<std::string> hosts;  // the plan's hosts
  int concurrency = 1;             // requests in flight
  double ttft_ms = 0;              // mean time to first token
  double stream_tps = 0;           // mean decode tokens/s of one request
  double total_tps = 0;            // all tokens over the level's wall time
  bool operator==(const MeasuredServing&) const = default;
};

struct Cluster {
  std::string name;
  std::vector<Host> hosts;
  std::vector<Cable> cables;
  std::vector<Network> networks;
  std::vector<Finding> findings;
  std::vector<GeneratorSpec> generators;  // empty once loaded
  std::vector<MeasuredServing> measured_serving;
  // What reading the file noticed but accepted ("512GB" read as decimal units); never written.
  std::vector<std::string> warnings;

  const Host* find_host(std::string_view name) const;
  Host* find_host(std::string_view name);
  // Index of the host in `hosts`, or -1. By a name index built on first use (and rebuilt when
  // `hosts` changed), so that looking up every cable's hosts stays linear in the cluster's size.
  int host_index(std::string_view name) const;
  // The description only: reading warnings do not count.
  bool operator==(const Cluster& o) const;

 private:
  mutable std::unordered_map<std::string, size_t> index_;
  mutable size_t indexed_ = 0;  // hosts[0, indexed_) are in index_
};

}  // namespace meshplan
