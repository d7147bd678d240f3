// Whether hosts can hold layers [0, L) as one chain (a first host, middles in any order, a last
// host, or one host holding all) with every range carrying at least a flow F: a reachability
// program over (layers covered, which of first and last are placed), host by host. The states
// reached are kept as bit sets, one word per 64 layers, so a host costs its usable lengths times
// L / 64 steps; the choice that reached a state is recovered only for the states the chain walks
// back through, by the rule a state-by-state program would follow (the first state in order, the
// shortest range, roles in the order both, first, last, middle).
#pragma once

#include <cstdint>
#include <vector>

#include "solvers/routed/routed_flow.hpp"

namespace meshplan {

class ChainReach {
 public:
  enum Role { kSkip, kMiddle, kFirst, kLast, kBoth };
  struct Step {
    int prev_s = -1, prev_mask = 0, k = 0;
    Role role = kSkip;
  };

  ChainReach(const RoutedInstance& instance, const std::vector<bool>& allowed);
  // With each host's kind (routed_host_kinds) worked out already: a search that runs the program
  // for many sets of hosts reads them once.
  ChainReach(const RoutedInstance& instance, const std::vector<bool>& allowed,
             const std::vector<size_t>& kinds);

  // Every capacity a range of an allowed host has, distinct, largest first: the values the
  // slowest range of a chain can take.
  std::vector<double> capacities() const;
  // Whether the hosts allowed reach (L, first and last placed) with every range at least F.
  bool feasible(double F);
  // After feasible(F): how `host`'s choice led to state (s, mask) (kSkip: it was reached before).
  // The program stops at the host that completes a chain, so after that host it answers only for
  // (L, both placed), the state a walk back from the end asks of them.
  Step how(size_t host, int s, int mask) const;

 private:
  // Bit s of a state set: s layers covered. One set per mask, `words_` words each, kept flat (the
  // bisection runs the program at every flow it tries). Hosts are read by their slot: their place
  // among the hosts the program considers.
  double cap(size_t slot, Role role, int k) const {
    return caps_[(kind_[slot] * static_cast<size_t>(L_ + 1) + static_cast<size_t>(k)) * 5 +
                 static_cast<size_t>(role)];
  }
  bool usable(size_t slot, Role role, int k) const { return cap(slot, role, k) + 1e-12 >= F_; }
  static bool test(const uint64_t* b, int s) {
    return b[static_cast<size_t>(s) / 64] >> (s % 64) & 1;
  }
  void or_shifted(uint64_t* to, const uint64_t* from, int k) const;
  // The state set of `mask` in the sets before the host of `slot`.
  const uint64_t* before(size_t slot, int mask) const {
    return &before_[(slot * 4 + static_cast<size_t>(mask)) * words_];
  }

  int L_;
  size_t words_;
  double F_ = 0;
  size_t reached_at_ = 0;  // the slot after which a chain was found (the slots' count: none)
  // The hosts considered: those allowed, but no more than L of a kind (a chain holds at most L
  // hosts and reads no links, so the others of that kind could only take the place of one of
  // those), in host order. Only they cost time or memory: a fleet's program reads a few hundred.
  std::vector<size_t> host_;      // per slot
  std::vector<size_t> kind_;      // per slot
  std::vector<int> longest_;      // per slot: the most layers with any capacity
  std::vector<double> caps_;      // [(kind * (L + 1) + k) * 5 + role], read once per kind
  std::vector<uint64_t> before_;  // [slot][mask][word]: the states reached before it
};

// Each host's kind, numbered from 0 in order of first appearance: hosts of one table, LM head time
// and memory limits have the same capacities (a fleet has thousands of hosts of a few kinds).
std::vector<size_t> routed_host_kinds(const RoutedInstance& instance);

}  // namespace meshplan
