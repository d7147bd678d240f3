#include "topologies/topology_context.hpp"

#include "lib/core/error.hpp"

namespace meshplan {

TopologyContext::TopologyContext(const Cluster& c, const Catalog& cat)
    : cluster(c), catalog(cat), graph(c, cat), fabric(c, graph) {
  try {
    subnets = plan_subnets(fabric);
  } catch (const Error& e) {
    subnet_error = e.what();
  }
  for (const auto& cable : c.cables)
    cable_ends.emplace_back(c.host_index(cable.a.host), c.host_index(cable.b.host));
  for (const auto& n : c.networks) {
    std::vector<char>& on = on_network.emplace_back(c.hosts.size(), n.all_hosts ? 1 : 0);
    if (n.all_hosts) continue;
    for (const auto& h : n.hosts)
      if (const int i = c.host_index(h); i >= 0) on[static_cast<size_t>(i)] = 1;
  }
}

std::vector<size_t> TopologyContext::members(const std::vector<std::string>& names) const {
  std::vector<size_t> out;
  if (names.empty()) {
    for (size_t i = 0; i < cluster.hosts.size(); ++i)
      out.push_back(i);
    return out;
  }
  std::vector<char> listed(cluster.hosts.size(), 0);
  for (const auto& n : names) {
    int i = cluster.host_index(n);
    if (i < 0) throw input_error("host {} is not in the cluster file", n);
    if (listed[static_cast<size_t>(i)]++) throw input_error("host {} is listed twice", n);
    out.push_back(static_cast<size_t>(i));
  }
  return out;
}

}  // namespace meshplan
