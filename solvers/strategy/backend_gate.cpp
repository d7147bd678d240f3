#include "solvers/strategy/backend_gate.hpp"

#include <fmt/format.h>

#include "lib/cluster/mlx_backend.hpp"

namespace meshplan {

std::string backend_transport(const std::string& backend) {
  if (is_jaccl(backend)) return "rdma";
  if (is_backend(backend, MlxBackend::kRing)) return "thunderbolt";
  if (is_backend(backend, MlxBackend::kEthernet)) return "network";
  return "local";
}

BackendGate::BackendGate(const TopologyContext& topology, const PlanningProblem& problem)
    : topology_(topology), message_bytes_(problem.inputs().message_bytes) {
  for (size_t i = 0; i < problem.size(); ++i) {
    names_.push_back(problem.host(i).name);
    int h = topology.cluster.host_index(problem.host(i).name);
    if (h < 0) continue;
    for (const CheckIssue& issue : rdma_host_issues(topology, {static_cast<size_t>(h)},
                                                    std::string(name(MlxBackend::kJaccl)))) {
      if (issue.severity != Severity::kError) continue;
      no_rdma_.push_back(i);
      no_rdma_reasons_.push_back(issue.message);
      break;
    }
  }
}

bool BackendGate::has_rdma_cable(size_t i) const {
  // Only cables carry RDMA (networks never do): the host's own edges, not every other host.
  const auto h = static_cast<size_t>(topology_.cluster.host_index(names_[i]));
  const LinkGraph::Graph& g = topology_.graph.graph();
  auto [it, end] = boost::out_edges(h, g);
  for (; it != end; ++it)
    if (boost::target(*it, g) != h && g[*it].link.rdma_cable) return true;
  return false;
}

std::vector<CheckIssue> BackendGate::settle(Plan& plan, const std::string& backend,
                                            const std::string& transport) const {
  std::vector<std::string> names;
  for (const RankPlan& r : plan.ranks)
    names.push_back(r.host);
  const bool several = names.size() > 1;
  plan.backend = several ? backend : std::string(name(MlxBackend::kNone));
  plan.transport = several ? transport : "local";
  Transport links = transport_named(transport);
  plan.cluster = cluster_print(topology_.cluster, topology_.graph, names,
                               several ? links : Transport::kAny, message_bytes_);
  if (!several) return {};
  BackendVerdict v = check_backend(topology_, backend, topology_.members(names), true);
  std::vector<CheckIssue> errors;
  for (CheckIssue& i : v.issues)
    if (i.severity == Severity::kError) errors.push_back(std::move(i));
  if (errors.empty() && v.transport != transport)
    errors.push_back(make_issue("plan-transport", Severity::kError, backend, names,
                                fmt::format("{} would run over {}, not the {} the plan assumed",
                                            backend, v.transport, transport)));
  return errors;
}

}  // namespace meshplan
