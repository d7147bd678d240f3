// Kinds of hosts for replicas: hosts a group plan cannot tell apart (the same figures and links
// as candidates, candidate_classes, and the same hardware and software in the cluster file, which
// engines and notes read). Two groups whose members have the same kinds in candidate order get
// the same plan, renamed, so a fleet's replicas are planned once per kind of group.
#pragma once

#include <string>
#include <vector>

#include "lib/cluster/catalog.hpp"
#include "lib/cluster/cluster.hpp"
#include "lib/models/model.hpp"
#include "solvers/problem/plan_request.hpp"

namespace meshplan {

// The kind of each of `hosts` (names, in candidate order), numbered from 0.
std::vector<int> replica_kinds(const Cluster& cluster, const Catalog& catalog,
                               const ModelDesc& model, const PlanRequest& request,
                               const std::vector<std::string>& hosts);

}  // namespace meshplan
