// The changes `meshplan advise` prices: each one edits a copy of the cluster, the request or the
// model's quantization (a Scenario), and says what to do physically. Cables are plugged into the
// ports free at the time the change is applied, so two changes on one host take two ports.
#pragma once

#include <string>
#include <vector>

#include "lib/cluster/catalog.hpp"
#include "lib/cluster/cluster.hpp"
#include "solvers/advice/change.hpp"
#include "solvers/problem/plan_request.hpp"

namespace meshplan {

std::vector<Change> candidate_changes(const ChangeSources& sources);

// Applies `changes` in order to a copy of the cluster and request.
Scenario apply_changes(const Cluster& cluster, const PlanRequest& request,
                       const std::vector<const Change*>& changes, const Catalog& catalog);

}  // namespace meshplan
