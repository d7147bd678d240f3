// What every topology rule, the planner's backend gate and the emitters derive from one cluster:
// its link graph, its Thunderbolt fabric and the /30 plan of its cables.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "lib/cluster/catalog.hpp"
#include "lib/cluster/cluster.hpp"
#include "lib/cluster/link_graph.hpp"
#include "topologies/subnet_plan.hpp"
#include "topologies/tb_fabric.hpp"

namespace meshplan {

// Everything the rules and emitters derive from one cluster. Not copyable: the parts refer to
// each other.
class TopologyContext {
 public:
  TopologyContext(const Cluster& cluster, const Catalog& catalog);
  TopologyContext(const TopologyContext&) = delete;
  TopologyContext& operator=(const TopologyContext&) = delete;

  const Cluster& cluster;
  const Catalog& catalog;
  const LinkGraph graph;
  const TbFabric fabric;
  SubnetPlan subnets;
  std::string subnet_error;  // set when the /30 plan does not fit
  // Per cable of the cluster file, its ends' host indices (-1: not a host of the file); per
  // network, whether each host is on it. Read by every check of a group of hosts, which a fleet's
  // replica search runs for each kind of group.
  std::vector<std::pair<int, int>> cable_ends;
  std::vector<std::vector<char>> on_network;

  // Host indices of `names` (all hosts in file order when empty); throws an input error naming an
  // unknown host.
  std::vector<size_t> members(const std::vector<std::string>& names) const;
};

}  // namespace meshplan
