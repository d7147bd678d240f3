// Kinds of groups of hosts for replicas and serving shapes: groups whose plans, renamed, are
// each other's, so a fleet's replicas (and its hosts alone) are planned once per kind.
#pragma once

#include <string>
#include <vector>

#include "lib/cluster/catalog.hpp"
#include "lib/cluster/cluster.hpp"
#include "lib/models/model.hpp"
#include "solvers/problem/plan_request.hpp"

namespace meshplan {

// Groups of candidates that plan alike. A group's plan reads only its own hosts and the links
// among them, so two groups plan alike (one's plan renamed is the other's) when their members,
// in candidate order, say the same of themselves in the cluster file (identity aside), are on
// the same networks, have cables of the same ports and figures (whoever is at the other end),
// and are cabled to each other at the same places. Hosts of different Thunderbolt islands are
// then alike, where classes of candidates, which read every link of a host, tell them apart.
class GroupKinds {
 public:
  // `hosts`: names, in candidate order.
  GroupKinds(const Cluster& cluster, const std::vector<std::string>& hosts);
  // The key of a group: its members (indices into `hosts`, sorted), their kinds and the cables
  // between them by position. Groups of one key plan alike.
  std::vector<int> key(const std::vector<size_t>& members) const;
  // The kind of machine a host is: what the file says of it and its networks, its cables aside.
  // Hosts of one machine kind form replicas of their own on a fleet.
  int machine(size_t host) const { return machine_[host]; }
  // The kind of a host: its machine and its cables (groups of hosts of one kind with no cables
  // among them plan alike).
  int kind(size_t host) const { return kind_[host]; }
  // The hosts joined by cables among the candidates, two or more each, in candidate order.
  std::vector<std::vector<size_t>> islands() const;

 private:
  std::vector<int> kind_;     // per host
  std::vector<int> machine_;  // per host
  // Per host: (the other host, the kind of cable from this end), for cables between candidates.
  std::vector<std::vector<std::pair<size_t, int>>> cables_;
};

}  // namespace meshplan
