// What every parallel strategy needs to know about the candidate hosts of a request: their
// figures, the best link between each pair for each transport, and the bounds on how many of
// them a plan may use (--hosts, --min-hosts, --max-hosts).
#pragma once

#include <optional>
#include <vector>

#include "lib/catalog.hpp"
#include "lib/cluster.hpp"
#include "lib/host_figures.hpp"
#include "lib/link_graph.hpp"
#include "lib/model.hpp"
#include "lib/plan.hpp"
#include "solvers/planner.hpp"

namespace meshplan {

using LinkMatrix = std::vector<std::vector<std::optional<LinkFigures>>>;

struct PlanInputs {
  std::vector<HostFigures> hosts;  // candidates, in the requested order
  LinkMatrix rdma;                 // RDMA cables only (JACCL)
  LinkMatrix tcp;                  // Thunderbolt as TCP or a network (MLX ring)
  LinkMatrix network;              // Ethernet / Wi-Fi networks only
  double message_bytes = 0;        // one token's activations, 2h
  int min_hosts = 1;               // resolved to [1, hosts.size()]
  int max_hosts = 1;

  size_t size() const { return hosts.size(); }
  const LinkMatrix& links(Transport t) const;
};

// The best plan of one strategy, or why that strategy cannot run (not enough memory, no
// all-reduce path, head count not divisible, not an MoE model).
struct StrategyOutcome {
  std::optional<Plan> plan;
  std::string reason;
};

// Validates --hosts, --min-hosts and --max-hosts (input errors name the flag) and gathers the
// figures.
PlanInputs gather_plan_inputs(const Cluster& cluster, const Catalog& catalog,
                              const ModelDesc& model, const PlanRequest& request);

}  // namespace meshplan
