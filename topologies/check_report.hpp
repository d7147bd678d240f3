// The result of `meshplan check`: for each backend whether the cabling and networks can carry it,
// every problem found with its fix (cables to add name a free port on each side), the backend
// chosen, and the same as JSON (`check --json`, schema meshplan.check/1).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "lib/core/json_util.hpp"

namespace meshplan {

inline constexpr const char* kCheckSchema = "meshplan.check/1";

enum class Severity { kError, kWarning, kNote };
const char* severity_name(Severity s);

// One end of a cable to plug in.
struct CablePlug {
  std::string host;
  std::string port;       // receptacle id, "" when no free port is known
  std::string interface;  // BSD interface of that port, "" when unknown
};

struct CableToAdd {
  CablePlug a;
  CablePlug b;
  std::string kind;  // "tb5", "tb4"
  // "connect mini-1 port 3 (en4) to mini-3 port 3 (en4) with a Thunderbolt 5 cable"
  std::string describe() const;
};

struct CheckIssue {
  std::string code;  // stable identifier, e.g. "mesh-missing-cable"
  Severity severity = Severity::kError;
  std::string backend;  // the backend it concerns, "" for the whole cluster
  std::vector<std::string> hosts;
  std::string message;
  std::string fix;
  std::vector<CableToAdd> add_cables;
};

CheckIssue make_issue(std::string code, Severity severity, std::string backend,
                      std::vector<std::string> hosts, std::string message, std::string fix = "");

struct BackendVerdict {
  std::string backend;  // "jaccl", "jaccl-ring", "ring", "ethernet"
  bool valid = false;
  std::string transport;           // "rdma", "thunderbolt", "network" (how the ranks talk)
  std::vector<std::string> ranks;  // hosts in rank order, when valid
  int cables_per_hop = 0;          // ring backends: parallel cables used between neighbours
  std::vector<CheckIssue> issues;
  bool has_errors() const;
};

// The fastest link between two hosts (SPEC section 7 figures).
struct PairLink {
  std::string a, b;
  std::string kind;  // "tb5-rdma", "tb5", "10gbe", ...
  int cables = 0;    // Thunderbolt cables between the two
  double latency_s = 0;
  double bandwidth = 0;  // bytes/s
};

struct PlannedSubnet {
  std::string subnet;  // "192.168.0.0/30"
  CablePlug a, b;
  std::string a_address, b_address;
};

// Result of checking an existing MLX hostfile against the cabling.
struct HostfileVerdict {
  std::string path;
  std::string backend;
  std::vector<std::string> ranks;
  std::vector<CheckIssue> issues;
  bool valid() const;
};

// What one host of an engine's launch talks over: the interface and address NCCL and Gloo use
// (NCCL_SOCKET_IFNAME, GLOO_SOCKET_IFNAME) and the HCAs NCCL's IB transport uses (NCCL_IB_HCA).
struct EngineHostPath {
  std::string host;
  std::string interface;
  std::string address;
  std::vector<std::string> hcas;  // empty: NCCL talks over sockets
  int gpus = 0;
  std::string gpu_part;  // the catalog key of its GPUs, "" when none or mixed
};

// What an engine's launch over Linux hosts needs of the network (`check --engine`, and `check` on
// a cluster without Macs): the data network every node reaches the others on, each node's path,
// and every problem with its fix.
struct EngineVerdict {
  std::string engine;     // "vllm", "llama-rpc", ...
  std::string title;      // "vLLM", as reports name it
  std::string network;    // "the 100gbe network 10.9.0.0/24", "" when there is none
  std::string transport;  // "ib" (InfiniBand or RoCE through NCCL's IB transport) or "socket"
  std::vector<EngineHostPath> hosts;
  std::vector<CheckIssue> issues;
  bool has_errors() const;
};

// Above this many hosts `links` lists only the pairs joined by a cable (not every pair of a shared
// network), so a check stays linear in the cluster's size.
inline constexpr size_t kAllPairLinksMaxHosts = 256;

struct CheckReport {
  std::string cluster;  // cluster name, may be empty
  size_t hosts = 0;
  size_t thunderbolt_cables = 0;
  size_t network_cables = 0;  // direct Ethernet/InfiniBand cables between the hosts checked
  size_t rdma_cables = 0;
  size_t networks = 0;
  std::string requested;  // "auto" or a backend
  std::string chosen;     // backend chosen; "" when none is valid
  std::vector<BackendVerdict> backends;
  std::vector<CheckIssue> general;  // problems that concern every backend
  std::vector<PairLink> links;
  bool links_complete = true;  // false: more than kAllPairLinksMaxHosts hosts, cabled pairs only
  std::vector<PlannedSubnet> subnets;
  std::optional<HostfileVerdict> hostfile;
  // MLX's backends are checked where Macs are present or a backend is asked for; a cluster of
  // Linux hosts gets its engine's check instead (the backends are still evaluated, since the
  // launch is laid out over one, but not reported).
  bool mlx_checked = true;
  std::optional<EngineVerdict> engine;

  const BackendVerdict* find(std::string_view backend) const;
  // The chosen backend is valid (when MLX's backends were checked), the engine's check has no
  // error (when made) and the hostfile, when given, has no errors.
  bool ok() const;
};

ojson check_report_json(const CheckReport& report);
// The human-readable report (stdout of `meshplan check`).
std::string render_check_report(const CheckReport& report);
// One issue as "error: message\n  fix: ..." lines, for commands that refuse to emit.
std::string render_issue(const CheckIssue& issue);

}  // namespace meshplan
