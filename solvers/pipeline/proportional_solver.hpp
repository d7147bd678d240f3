// The split everyone ships: exo 1.0's layers in proportion to memory (largest remainder, at
// least one layer per node), over the hosts in the given order. The baseline of every plan.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "solvers/problem/pipeline_cost.hpp"

namespace meshplan {

// exo's allocate_layers_proportionally: floor of fraction x layers, leftover layers by largest
// fractional part (ties to the earlier node), then every node with none takes one from the first
// node holding the most. Throws a failure "empty node list" / "need at least 1 layer per node".
std::vector<int> allocate_layers_proportionally(int total_layers,
                                                const std::vector<double>& fractions);

// exo's per-node check: floor(storage x layers_i / total) must fit each node's available bytes.
// Throws a failure "... has insufficient memory ..." naming the node.
void check_proportional_memory(uint64_t storage_bytes, const std::vector<int>& layers,
                               const std::vector<double>& available,
                               const std::vector<std::string>& names);

// Layers in proportion to usable memory over `order` (indices into the cost model's hosts).
PipelineAssignment proportional_assignment(const PipelineCostModel& cost,
                                           const std::vector<size_t>& order);

// exo 0.0.x (RingMemoryWeightedPartitioningStrategy): nodes sorted by (memory, name) descending
// form the ring; node i gets the float range [start, round(start + memory/total, 5)).
struct FloatPartition {
  std::string node;
  double start = 0;
  double end = 0;
};
std::vector<FloatPartition> exo_v0_partitions(
    const std::vector<std::pair<std::string, double>>& node_memory);

// exo 0.0.x map_partitions_to_shards: [int(start*L), int(end*L)-1] inclusive, the last shard
// forced to end at L-1, empty shards dropped. Returns (node, first, last) triples.
struct InclusiveShard {
  std::string node;
  int first = 0;
  int last = 0;
  bool operator==(const InclusiveShard&) const = default;
};
std::vector<InclusiveShard> exo_v0_shards(const std::vector<FloatPartition>& partitions,
                                          int layers);

// The exo 0.0.x split over the hosts of `order` (ring order re-sorted by usable memory).
PipelineAssignment proportional_v0_assignment(const PipelineCostModel& cost,
                                              const std::vector<size_t>& order);

}  // namespace meshplan
