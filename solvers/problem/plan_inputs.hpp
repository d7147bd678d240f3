// The figures every strategy plans with: the candidate hosts' figures, the best link between each
// pair for each transport, and the bounds on how many of them a plan may use (--hosts,
// --min-hosts, --max-hosts). Built once per plan by PlanningProblem; tests fill it by hand.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "lib/cluster/host_figures.hpp"
#include "lib/cluster/link_graph.hpp"
#include "lib/plan/plan.hpp"
#include "solvers/problem/link_matrix.hpp"

namespace meshplan {

struct PlanInputs {
  std::vector<HostFigures> hosts;  // candidates, in the requested order
  LinkMatrix rdma;                 // RDMA cables only (JACCL)
  LinkMatrix tcp;                  // Thunderbolt as TCP or a network
  LinkMatrix thunderbolt;          // Thunderbolt cables as TCP only (MLX ring)
  LinkMatrix network;              // Ethernet / Wi-Fi networks only
  LinkMatrix any;                  // the fastest link of any kind (backend auto)
  double message_bytes = 0;        // one token's activations, 2h
  double mesh_peer_s = 0;          // a JACCL mesh all-reduce's cost per peer (Catalog)
  int min_hosts = 1;               // resolved to [1, hosts.size()]
  int max_hosts = 1;

  size_t size() const { return hosts.size(); }
  const LinkMatrix& links(Transport t) const;
  // Every transport's matrix, for questions asked of all of them.
  std::array<const LinkMatrix*, 5> matrices() const {
    return {&rdma, &tcp, &thunderbolt, &network, &any};
  }
};

// The best plan of one strategy, or why that strategy cannot run (not enough memory, no
// all-reduce path, head count not divisible, not an MoE model).
struct StrategyOutcome {
  std::optional<Plan> plan;
  std::string reason;
};

}  // namespace meshplan
