// What to plug in: free ports for missing cables (never the same port twice across one report),
// and the fewest cables that turn the existing cabling into a ring through every host, found as a
// minimum-cost Hamiltonian cycle (cost 0 for cabled pairs, 1 for a new cable) over subsets with
// each host's free ports as a budget. Exact up to 12 hosts; a greedy bound beyond.
#pragma once

#include <vector>

#include "topologies/check_report.hpp"
#include "topologies/tb_fabric.hpp"

namespace meshplan {

inline constexpr size_t kExactRingAdviceHosts = 12;

// Hands out free Thunderbolt ports, lowest receptacle first, each at most once.
class PortAllocator {
 public:
  PortAllocator(const TbFabric& fabric, bool tb5_only);
  // A plug on the next free port of `host`; its port is empty when none is left.
  CablePlug take(size_t host);
  size_t remaining(size_t host) const;

 private:
  const TbFabric& fabric_;
  std::vector<std::vector<const FabricPort*>> free_;
  std::vector<size_t> next_;
};

// A new cable between hosts a and b on ports from the allocator.
CableToAdd new_cable(const TbFabric& fabric, PortAllocator& ports, size_t a, size_t b, bool tb5);

struct RingAdvice {
  bool possible = false;      // a ring can be formed with the free ports
  bool exact = false;         // the count is proven minimal
  std::vector<size_t> order;  // host indices around the resulting ring
  std::vector<std::pair<size_t, size_t>>
      new_pairs;  // host pairs that need a new cable, in ring order
};

// The fewest new cables for a ring through `members` (host indices) over the existing cables
// (RDMA-capable ones when rdma_only), new cables only where both hosts have a free port.
RingAdvice fewest_cables_for_ring(const TbFabric& fabric, const std::vector<size_t>& members,
                                  bool rdma_only);

}  // namespace meshplan
