// What an engine's launch over Linux hosts needs of the network, checked before anything starts
// (`check --engine NAME`, and `check` on a cluster without Macs): the launch laid out as `emit`
// lays it out, so the network, interface and HCAs named are those the emitted NCCL_SOCKET_IFNAME,
// GLOO_SOCKET_IFNAME and NCCL_IB_HCA say; then whether every node has an address on that network,
// one subnet and one MTU there, an RDMA device where the network carries RDMA, and (where the
// engine's launch needs it) the same GPUs on every node.
#pragma once

#include <optional>

#include "lib/cluster/catalog.hpp"
#include "lib/cluster/cluster.hpp"
#include "lib/plan/engines.hpp"
#include "lib/plan/plan_file_reader.hpp"
#include "topologies/check_report.hpp"
#include "topologies/topology_context.hpp"

namespace meshplan {

// `report` is the check of the hosts in the launch's order (check_options_for); its ethernet or
// ring verdict gives the ranks as `emit` takes them.
EngineVerdict check_engine_launch(const TopologyContext& topology, const CheckReport& report,
                                  const std::optional<PlanRanks>& plan, const Engine& engine);

// The engine `check` speaks for on `hosts` (all of the cluster when empty): the plan's, else the
// one the planner infers for Linux hosts (vLLM on NVIDIA hosts, llama.cpp RPC on CPU hosts);
// nullptr when a Mac is among them (MLX's backends are checked instead).
const Engine* engine_to_check(const Cluster& cluster, const Catalog& catalog,
                              const std::vector<std::string>& hosts,
                              const std::optional<PlanRanks>& plan);

}  // namespace meshplan
