#include "tests/routed_instances.hpp"

#include <algorithm>
#include <functional>

namespace meshplan::testing {

RoutedHost routed_host(std::string name, std::vector<double> table) {
  RoutedHost h;
  h.name = std::move(name);
  h.table = std::move(table);
  return h;
}

RoutedInstance routed_cluster(int layers, std::vector<RoutedHost> hosts, double link) {
  RoutedInstance in;
  in.layers = layers;
  in.hosts = std::move(hosts);
  const size_t n = in.hosts.size();
  in.link.assign(n, std::vector<double>(n, link));
  for (size_t i = 0; i < n; ++i)
    in.link[i][i] = 0;
  return in;
}

double routed_best_flow(const RoutedInstance& in) {
  RoutedLayout cur(in.hosts.size());
  double best = 0;
  std::function<void(size_t)> rec = [&](size_t i) {
    if (i == in.hosts.size()) {
      best = std::max(best, routed_flow_total(in, cur));
      return;
    }
    cur[i] = {};
    rec(i + 1);
    for (int s = 0; s < in.layers; ++s)
      for (int e = s + 1; e <= in.layers; ++e)
        if (range_capacity(in, i, {s, e}) > 0) {
          cur[i] = {s, e};
          rec(i + 1);
        }
    cur[i] = {};
  };
  rec(0);
  return best;
}

}  // namespace meshplan::testing
