// Helix's clusters (tests/fixtures/helix/) as routed instances, for the tests and the benchmark:
// each node's profiled table, every pair of nodes linked at `link` (Helix's capacity).
#pragma once

#include <fstream>
#include <sstream>
#include <string>

#include "solvers/problem/throughput_profile.hpp"
#include "solvers/routed/routed_flow.hpp"

namespace meshplan::testing {

inline RoutedInstance helix_cluster(const std::string& name, int layers, double link) {
  const std::string path =
      std::string(MESHPLAN_SOURCE_DIR) + "/tests/fixtures/helix/" + name + ".profile.yaml";
  std::ifstream file(path);
  std::stringstream text;
  text << file.rdbuf();
  RoutedInstance in;
  in.layers = layers;
  for (const auto& [host, table] : parse_throughput_profile(text.str(), path).hosts) {
    RoutedHost h;
    h.name = host;
    h.table = table;
    in.hosts.push_back(h);
  }
  const size_t n = in.hosts.size();
  in.link.assign(n, std::vector<double>(n, link));
  for (size_t i = 0; i < n; ++i)
    in.link[i][i] = 0;
  return in;
}

}  // namespace meshplan::testing
