// Replicas: the candidate hosts split into groups that each serve a full copy of the model, each
// group planned by the existing strategies (any strategy inside a group) with its own batched
// decode. The load is the whole plan's, shared among the replicas (docs/serving.md).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "lib/cluster/catalog.hpp"
#include "lib/cluster/cluster.hpp"
#include "lib/core/clock.hpp"
#include "lib/models/model.hpp"
#include "lib/plan/plan.hpp"
#include "solvers/problem/plan_request.hpp"
#include "topologies/topology_context.hpp"

namespace meshplan {

struct ReplicaSet {
  std::vector<Plan> plans;  // one per replica, each with its serving figures
  std::vector<ReplicaInfo> replicas;
  double aggregate_tokens_per_s = 0;
  // On a fleet: per kind of machine, how many hosts the replicas use and why not more.
  std::vector<std::string> notes;
};

// The plan of one group of hosts (names, in candidate order) with serving figures at its own best
// load within the request's targets, or nothing when the model does not fit on it.
// `topology`, when given, is the cluster's, built once for every group.
std::optional<Plan> plan_group(const Cluster& cluster, const Catalog& catalog,
                               const ModelDesc& model, const PlanRequest& request,
                               const std::vector<std::string>& hosts, const Clock& clock,
                               const TopologyContext* topology = nullptr);

// Replicas from plans of disjoint groups (each planned by plan_group) serving the request's load
// together: N requests in flight shared where each adds the most tokens/s, arrivals shared by
// what each copy finishes within the targets, or each at its own best. Request shares are the
// replicas' requests a second. Nothing when the load does not fit or a replica misses a target.
// Plans with one `alike` number (one per plan; empty: none alike) are each other's renamed: their
// load model and their serving at one load are worked out once, for thousands of replicas.
std::optional<ReplicaSet> replica_set(std::vector<Plan> plans, const ModelDesc& model,
                                      const PlanRequest& request,
                                      const std::vector<size_t>& alike = {});

// The serving figures of replicas together: loads and tokens/s summed, each request's means
// weighted by the replicas' request shares, one stream's speed the slowest replica's.
ServingInfo replicas_serving(const ReplicaSet& set);

// Up to this many candidates, replicas are chosen over every partition of the hosts (each
// subset planned once: 2^n plans); above it, over the splits below.
inline constexpr size_t kExactReplicaHosts = 8;
// Up to this many candidates, groups balanced by memory are tried for every number of groups,
// and every host that holds the model alone with the others as one group. Mixed groups of a
// fleet are each planned afresh (hundreds of plans of dozens of hosts), where groups of one kind
// of machine are planned once per size.
inline constexpr size_t kBalancedReplicaHosts = 48;
// Requests in flight are shared among those groups in at most this many parts.
inline constexpr int kLoadUnits = 64;

// The split of `whole`'s candidates into two or more groups with the highest aggregate
// tokens/s: every partition (hosts may stay idle) up to kExactReplicaHosts candidates; above it,
// groups of one kind of machine each, sized by a knapsack over a few planned group sizes per
// kind (replica_splits.hpp), with the hosts left over as one more group or idle, and with
// Thunderbolt islands that hold a copy as replicas first; up to kBalancedReplicaHosts also
// groups balanced by memory for every number of groups, and every host that holds the model
// alone as its own replica. Nothing when no split has two feasible groups. Groups that plan
// alike (GroupKinds, replica_kinds.hpp) are planned once: the replicas chosen get that plan
// renamed, so thousands of replicas cost a few plans.
std::optional<ReplicaSet> best_replicas(const Cluster& cluster, const Catalog& catalog,
                                        const ModelDesc& model, const PlanRequest& request,
                                        const Plan& whole, const Clock& clock);

}  // namespace meshplan
