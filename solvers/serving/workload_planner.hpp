// Several models on one cluster (--workload): each model gets a disjoint group of hosts, served
// as replicas of the hosts that hold it alone or as one plan of the existing strategies over its
// group, chosen for the objective weighted by each model's share of the requests: throughput
// maximises the least aggregate tokens/s per unit of share, latency the share-weighted time per
// token. A model left without a host is colocated where memory allows.
#pragma once

#include <string>
#include <vector>

#include "lib/cluster/catalog.hpp"
#include "lib/cluster/cluster.hpp"
#include "lib/core/clock.hpp"
#include "lib/models/model.hpp"
#include "lib/plan/plan.hpp"
#include "solvers/problem/plan_request.hpp"
#include "solvers/serving/workload.hpp"

namespace meshplan {

struct WorkloadModel {
  const ModelDesc* model = nullptr;
  WorkloadEntry entry;
};

struct WorkloadPlan {
  std::string objective;
  std::vector<Plan> plans;     // one per model, in the file's order, with serving figures
  std::vector<double> shares;  // of the requests
};

WorkloadPlan plan_workload(const Cluster& cluster, const Catalog& catalog,
                           const std::vector<WorkloadModel>& models, const PlanRequest& request,
                           const Clock& clock);

}  // namespace meshplan
