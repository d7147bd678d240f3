#include "solvers/pipeline/proportional_solver.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "lib/core/error.hpp"
#include "lib/core/units.hpp"

namespace meshplan {

std::vector<int> allocate_layers_proportionally(int total_layers,
                                                const std::vector<double>& fractions) {
  const int n = static_cast<int>(fractions.size());
  if (n == 0) throw failure("cannot split layers: empty node list");
  if (total_layers < n)
    throw failure("cannot split {} layers over {} hosts: need at least 1 layer per node",
                  total_layers, n);
  std::vector<int> layers(static_cast<size_t>(n));
  std::vector<double> remainder(static_cast<size_t>(n));
  int assigned = 0;
  for (int i = 0; i < n; ++i) {
    double raw = fractions[static_cast<size_t>(i)] * total_layers;
    layers[static_cast<size_t>(i)] = static_cast<int>(std::floor(raw));
    remainder[static_cast<size_t>(i)] = raw - std::floor(raw);
    assigned += layers[static_cast<size_t>(i)];
  }
  std::vector<int> idx(static_cast<size_t>(n));
  std::iota(idx.begin(), idx.end(), 0);
  std::stable_sort(idx.begin(), idx.end(), [&](int a, int b) {
    return remainder[static_cast<size_t>(a)] > remainder[static_cast<size_t>(b)];
  });
  for (int k = 0; k < total_layers - assigned && k < n; ++k)
    ++layers[static_cast<size_t>(idx[static_cast<size_t>(k)])];
  for (int i = 0; i < n; ++i) {
    if (layers[static_cast<size_t>(i)] > 0) continue;
    auto donor = std::max_element(layers.begin(), layers.end());  // first of the largest
    if (*donor <= 1)
      throw failure("cannot split {} layers over {} hosts: need at least 1 layer per node",
                    total_layers, n);
    --*donor;
    layers[static_cast<size_t>(i)] = 1;
  }
  return layers;
}

void check_proportional_memory(uint64_t storage_bytes, const std::vector<int>& layers,
                               const std::vector<double>& available,
                               const std::vector<std::string>& names) {
  int total = std::accumulate(layers.begin(), layers.end(), 0);
  for (size_t i = 0; i < layers.size(); ++i) {
    double required = std::floor(static_cast<double>(storage_bytes) * layers[i] / total);
    if (required > available[i]) {
      throw failure(
          "node {} ({}) has insufficient memory: requires {} for {} layers, but only has {} "
          "available",
          i, names[i], format_bytes(required), layers[i], format_bytes(available[i]));
    }
  }
}

PipelineAssignment proportional_assignment(const PipelineCostModel& cost,
                                           const std::vector<size_t>& order) {
  double total = 0;
  for (size_t h : order)
    total += cost.host(h).usable_bytes;
  std::vector<double> fractions;
  for (size_t h : order)
    fractions.push_back(total > 0 ? cost.host(h).usable_bytes / total : 0);
  std::vector<int> layers = allocate_layers_proportionally(cost.num_layers(), fractions);
  PipelineAssignment a;
  a.order = order;
  a.cuts.push_back(0);
  for (int l : layers)
    a.cuts.push_back(a.cuts.back() + l);
  return a;
}

std::vector<FloatPartition> exo_v0_partitions(
    const std::vector<std::pair<std::string, double>>& node_memory) {
  std::vector<std::pair<std::string, double>> nodes = node_memory;
  std::stable_sort(nodes.begin(), nodes.end(), [](const auto& a, const auto& b) {
    return a.second != b.second ? a.second > b.second : a.first > b.first;
  });
  double total = 0;
  for (const auto& n : nodes)
    total += n.second;
  std::vector<FloatPartition> out;
  double start = 0;
  for (const auto& [name, memory] : nodes) {
    double end = std::round((start + memory / total) * 1e5) / 1e5;
    out.push_back({name, start, end});
    start = end;
  }
  return out;
}

std::vector<InclusiveShard> exo_v0_shards(const std::vector<FloatPartition>& partitions,
                                          int layers) {
  std::vector<InclusiveShard> out;
  for (size_t i = 0; i < partitions.size(); ++i) {
    int first = static_cast<int>(partitions[i].start * layers);
    int last = static_cast<int>(partitions[i].end * layers) - 1;
    if (i + 1 == partitions.size()) last = layers - 1;
    if (first <= last) out.push_back({partitions[i].node, first, last});
  }
  if (!out.empty()) out.back().last = layers - 1;
  return out;
}

PipelineAssignment proportional_v0_assignment(const PipelineCostModel& cost,
                                              const std::vector<size_t>& order) {
  std::vector<std::pair<std::string, double>> nodes;
  for (size_t h : order)
    nodes.emplace_back(cost.host(h).name, cost.host(h).usable_bytes);
  std::vector<InclusiveShard> shards = exo_v0_shards(exo_v0_partitions(nodes), cost.num_layers());
  PipelineAssignment a;
  a.cuts.push_back(0);
  for (const auto& s : shards) {
    for (size_t h : order) {
      if (cost.host(h).name == s.node) a.order.push_back(h);
    }
    a.cuts.push_back(s.last + 1);
  }
  return a;
}

}  // namespace meshplan
