#include "solvers/plan_inputs.hpp"

#include <algorithm>

#include "lib/error.hpp"

namespace meshplan {

const LinkMatrix& PlanInputs::links(Transport t) const {
  switch (t) {
    case Transport::kRdma:
      return rdma;
    case Transport::kNetwork:
      return network;
    default:
      return tcp;
  }
}

PlanInputs gather_plan_inputs(const Cluster& cluster, const Catalog& catalog,
                              const ModelDesc& model, const PlanRequest& request) {
  std::vector<size_t> candidates;
  if (request.hosts.empty()) {
    for (size_t i = 0; i < cluster.hosts.size(); ++i)
      candidates.push_back(i);
  }
  for (const auto& name : request.hosts) {
    int i = cluster.host_index(name);
    if (i < 0) throw input_error("--hosts: unknown host \"{}\"", name);
    if (std::find(candidates.begin(), candidates.end(), static_cast<size_t>(i)) != candidates.end())
      throw input_error("--hosts: host \"{}\" is listed twice", name);
    candidates.push_back(static_cast<size_t>(i));
  }
  if (candidates.empty()) throw input_error("the cluster has no hosts");
  const int n = static_cast<int>(candidates.size());
  if (request.min_hosts < 0 || request.max_hosts < 0)
    throw input_error("--min-hosts and --max-hosts must not be negative");
  if (request.min_hosts > n)
    throw input_error("--min-hosts {}: only {} candidate host{}", request.min_hosts, n,
                      n == 1 ? "" : "s");
  if (request.max_hosts > 0 && request.max_hosts < request.min_hosts)
    throw input_error("--max-hosts {} is below --min-hosts {}", request.max_hosts,
                      request.min_hosts);

  PlanInputs in;
  in.min_hosts = std::max(1, request.min_hosts);
  in.max_hosts = request.max_hosts > 0 ? std::min(n, request.max_hosts) : n;
  in.message_bytes = catalog.activation_bytes() * model.hidden_size;
  for (size_t i : candidates)
    in.hosts.push_back(host_figures(cluster.hosts[i], catalog));
  LinkGraph graph(cluster, catalog);
  auto matrix = [&](Transport t) {
    LinkMatrix m(candidates.size(), std::vector<std::optional<LinkFigures>>(candidates.size()));
    for (size_t a = 0; a < candidates.size(); ++a)
      for (size_t b = 0; b < candidates.size(); ++b)
        if (a != b) m[a][b] = graph.best(candidates[a], candidates[b], t, in.message_bytes);
    return m;
  };
  in.rdma = matrix(Transport::kRdma);
  in.tcp = matrix(Transport::kTcp);
  in.network = matrix(Transport::kNetwork);
  return in;
}

}  // namespace meshplan
