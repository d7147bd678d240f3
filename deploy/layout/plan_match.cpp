#include "deploy/layout/plan_match.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "lib/cluster/mlx_backend.hpp"
#include "lib/core/error.hpp"

namespace meshplan {

std::string backend_for_plan(const std::string& requested, const std::optional<PlanRanks>& plan) {
  if (!plan || plan->backend.empty() || is_backend(plan->backend, MlxBackend::kNone))
    return requested;
  if (!is_backend(requested, MlxBackend::kAuto) && requested != plan->backend) {
    throw input_error(
        "--backend {}: the plan was predicted for {}; leave --backend out to use it, or plan "
        "again with --backend {}",
        requested, plan->backend, requested);
  }
  return plan->backend;
}

void require_plan_matches(const TopologyContext& topology, const PlanRanks& plan) {
  for (const std::string& host : plan.hosts())
    if (topology.cluster.host_index(host) < 0)
      throw input_error("the plan's host \"{}\" is not in the cluster", host);
  if (!plan.made_for) return;
  const bool several = plan.ranks.size() > 1;
  Transport t = !several                 ? Transport::kAny
                : plan.transport.empty() ? transport_for_backend(plan.backend)
                                         : transport_named(plan.transport);
  ClusterPrint now = cluster_print(topology.cluster, topology.graph, plan.hosts(), t,
                                   plan.made_for->message_bytes);
  std::vector<std::string> diffs = print_differences(*plan.made_for, now);
  if (diffs.empty()) return;
  throw failure(
      "the cluster differs from the one the plan was made for: {}; plan again with this "
      "cluster",
      fmt::join(diffs, "; "));
}

CheckOptions check_options_for(const std::string& requested_backend,
                               const std::optional<PlanRanks>& plan) {
  CheckOptions o;
  o.backend = backend_for_plan(requested_backend, plan);
  if (plan) {
    o.hosts = plan->hosts();
    // Neither a routed plan's ranks nor a workload's hosts are a ring.
    o.fixed_order = !plan->routing && plan->models.empty();
  }
  return o;
}

CheckReport check_plan_against_cluster(const TopologyContext& topology,
                                       const std::string& requested_backend,
                                       const std::optional<PlanRanks>& plan) {
  if (plan) require_plan_matches(topology, *plan);
  return check_cluster(topology, check_options_for(requested_backend, plan));
}

}  // namespace meshplan
