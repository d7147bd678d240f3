// What every launcher format starts from: the ranks in order (the plan's, or the checked
// backend's without a plan), each with its host, the address every other host reaches it on (its
// management address, never a Thunderbolt /30), the interface that address lives on, the data
// interface the plan priced (a direct cable or the data network) and the RDMA devices on the links
// the ranks use. A plan gives one rank per host, so a node is a rank.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "lib/cluster/cluster.hpp"
#include "lib/core/engine_rules.hpp"

namespace meshplan {

struct LaunchNode {
  int rank = 0;
  const Host* host = nullptr;
  std::string ssh;              // ssh target as written ("admin@mac-1" or the name)
  std::string ssh_host;         // the target without its user part
  std::string ssh_user;         // the user part of the target, "" when none
  std::string address;          // management address, "" when unknown
  std::string interface;        // the interface of `address`
  std::string address_problem;  // why there is no address
  bool mac = false;             // macOS (Metal, Thunderbolt RDMA devices); else Linux
  // Where the data goes, as the plan priced it (launch_nodes.hpp): the direct cable's interface
  // when cables join every pair of ranks, else the fastest switch holding them all (its subnet
  // matched to the host's addresses) when they talk over a network; else `interface`.
  std::string data_interface;
  std::string data_address;                   // the IPv4 of `data_interface` ("" when it has none)
  std::vector<std::string> rdma_devices;      // on the RDMA links to the other ranks, in order
  std::optional<std::pair<int, int>> layers;  // [start, end) from the plan
  int tp = 1;                                 // GPUs per layer on a host of several (the plan's)
  std::vector<std::pair<int, int>> gpu_stages;  // its groups' layers, in order
  std::vector<std::string> tp_group;            // hybrid plans: the hosts its layers are split over
  // Processes the node runs: one per GPU of a host of several, else one (launcher_slots).
  int processes() const { return launcher_slots(host ? static_cast<int>(host->gpus.size()) : 0); }
  // NVIDIA GPUs the node has (0 on a Mac or a host without GPUs).
  int cuda_gpus() const { return mac || !host ? 0 : static_cast<int>(host->gpus.size()); }
};

struct LaunchLayout {
  std::vector<LaunchNode> nodes;  // in rank order
  std::string backend;            // the checked backend: jaccl, jaccl-ring, ring, ethernet
  std::string strategy;           // the plan's ("pipeline", "tensor", "expert"), "" without one
  std::string transport;          // rdma, thunderbolt, network, local
  bool from_plan = false;

  // The node's management address; a failure naming the host, `why` and the fix when unknown.
  const std::string& reachable(size_t node, std::string_view why) const;
  // The node's management interface, with the same failure.
  const std::string& reachable_interface(size_t node, std::string_view why) const;
};

}  // namespace meshplan
