// `check --live` for an engine's launch over Linux hosts (vLLM, llama.cpp RPC): the TCP
// connections its launch files name (deploy/writers/engine_connections) with one ephemeral port
// per pair of nodes, and what each host reports of its GPUs, HCAs and versions
// (deploy/configure/linux_launch_facts) against the cluster file and the other nodes. A refused
// connection's fix is one rule: allow TCP between the nodes on their network.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "deploy/configure/live_check.hpp"
#include "deploy/configure/tcp_check.hpp"
#include "lib/cluster/catalog.hpp"
#include "lib/plan/plan_file_reader.hpp"
#include "topologies/check_report.hpp"
#include "topologies/topology_context.hpp"

namespace meshplan {

// One node as the launch uses it.
struct EngineNode {
  std::string host;
  size_t gpus = 0;
  std::string chip;               // the cluster file's GPU part when all are one, else ""
  std::vector<std::string> hcas;  // NCCL_IB_HCA's devices
};

struct EngineLaunchCheck {
  std::string engine;   // "vllm", "llama-rpc"
  std::string summary;  // "vLLM launch: master port 29501, API 8000, 1 ephemeral per pair"
  bool ray = false;     // Ray starts the nodes: its version is compared too
  std::vector<EngineNode> nodes;
  std::vector<TcpProbe> probes;  // ephemeral ones with port 0 until set_ephemeral_ports
};

// The check of report.engine's launch when it is an engine of Linux hosts and its layout can be
// built; nullopt otherwise (mlx.launch's connections are tried then), with a note saying why
// when the engine's could not be listed.
std::optional<EngineLaunchCheck> engine_launch_check(const TopologyContext& topo,
                                                     const CheckReport& report,
                                                     const std::optional<PlanRanks>& plan,
                                                     std::vector<std::string>& notes);

// Each ephemeral probe's port from its listener's ip_local_port_range (Linux's default where
// unread), in the range's upper half.
void set_ephemeral_ports(EngineLaunchCheck& check, const LiveReport& live);

// The hosts' GPUs against the cluster file, their HCAs' port states, and the versions that must
// match across nodes; missing tools become notes.
void engine_host_findings(const EngineLaunchCheck& check, const Catalog& catalog,
                          const LiveReport& live, std::vector<LiveFinding>& findings,
                          std::vector<std::string>& notes);

}  // namespace meshplan
