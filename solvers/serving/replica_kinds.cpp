#include "solvers/serving/replica_kinds.hpp"

#include "solvers/problem/candidate_classes.hpp"
#include "solvers/problem/planning_problem.hpp"

namespace meshplan {
namespace {

// The host as a plan reads it beyond its figures: everything but its name, how to reach it and
// its addresses and serial numbers (interfaces keep their names and kinds, which launches and
// notes print).
Host without_identity(const Host& h) {
  Host x = h;
  x.name.clear();
  x.ssh.clear();
  for (NetInterface& i : x.interfaces) {
    i.ipv4.clear();
    i.mac.clear();
  }
  for (Gpu& g : x.gpus)
    g.uuid.clear();
  for (ThunderboltPort& p : x.ports) {
    p.domain_uuid.clear();
    p.ipv4.clear();
  }
  if (x.thunderbolt_bridge) x.thunderbolt_bridge->ipv4.clear();
  return x;
}

}  // namespace

std::vector<int> replica_kinds(const Cluster& cluster, const Catalog& catalog,
                               const ModelDesc& model, const PlanRequest& request,
                               const std::vector<std::string>& hosts) {
  PlanRequest r = request;
  r.hosts = hosts;
  r.min_hosts = r.max_hosts = 0;
  r.pins.clear();
  const PlanningProblem problem(cluster, catalog, model, r);
  std::vector<size_t> all(problem.size());
  for (size_t i = 0; i < all.size(); ++i)
    all[i] = i;
  const std::vector<int> classes = candidate_classes(problem, all);
  // Split each class by what the cluster file says of its hosts.
  std::vector<int> kind(hosts.size(), -1);
  std::vector<std::pair<int, Host>> kinds;  // each kind's class and host
  for (size_t i = 0; i < hosts.size(); ++i) {
    const Host* h = cluster.find_host(hosts[i]);
    const Host x = h ? without_identity(*h) : Host{};
    for (size_t k = 0; k < kinds.size() && kind[i] < 0; ++k)
      if (kinds[k].first == classes[i] && kinds[k].second == x) kind[i] = static_cast<int>(k);
    if (kind[i] < 0) {
      kind[i] = static_cast<int>(kinds.size());
      kinds.emplace_back(classes[i], x);
    }
  }
  return kind;
}

}  // namespace meshplan
