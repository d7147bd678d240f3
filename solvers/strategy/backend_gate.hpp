// The one backend decision shared by `check` and `plan`: a plan is only offered over a backend
// that `check` accepts for the hosts it uses in its rank order. Plans are made per backend over
// that backend's links only (so the prediction is what its hostfile gives), hosts that cannot run
// RDMA at all (an old macOS, RDMA off) lose their RDMA links first, and each plan is then checked
// with the topology rules of SPEC section 5.
#pragma once

#include <string>
#include <vector>

#include "lib/plan/plan.hpp"
#include "solvers/problem/planning_problem.hpp"
#include "topologies/backend_rules.hpp"

namespace meshplan {

// "rdma", "thunderbolt", "network" or "local" (one host).
std::string backend_transport(const std::string& backend);

class BackendGate {
 public:
  BackendGate(const TopologyContext& topology, const PlanningProblem& problem);

  // Candidate indices of the hosts that cannot use RDMA, and why (one line each).
  const std::vector<size_t>& no_rdma() const { return no_rdma_; }
  const std::vector<std::string>& no_rdma_reasons() const { return no_rdma_reasons_; }
  // Whether candidate `i` has a cable that could carry RDMA (TB5 on both ends, rdma on).
  bool has_rdma_cable(size_t i) const;

  // Sets the plan's backend (the one it was planned for; "none" on one host), its transport and
  // the print of the hardware it was made for; returns the check's errors for that backend over
  // the plan's ranks, empty when it is valid.
  // `transport` is the one the plan was predicted over ("rdma", "thunderbolt", "network"): a
  // backend that would run over another (a ring with a Thunderbolt ring where the plan assumed
  // the network) does not give the predicted speed and is rejected.
  std::vector<CheckIssue> settle(Plan& plan, const std::string& backend,
                                 const std::string& transport) const;

 private:
  const TopologyContext& topology_;
  std::vector<size_t> no_rdma_;
  std::vector<std::string> no_rdma_reasons_;
  double message_bytes_ = 0;
  std::vector<std::string> names_;  // candidate names
};

}  // namespace meshplan
