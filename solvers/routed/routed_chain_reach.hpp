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

  // Whether the hosts allowed reach (L, first and last placed) with every range at least F.
  bool feasible(double F);
  // After feasible(F): how host i's choice led to state (s, mask) (kSkip: it was reached before).
  // The program stops at the host that completes a chain, so after that host it answers only for
  // (L, both placed), the state a walk back from the end asks of them.
  Step how(size_t i, int s, int mask) const;

 private:
  // Bit s of a state set: s layers covered. One set per mask, `words_` words each, kept flat (the
  // bisection runs the program at every flow it tries, over every host).
  double cap(size_t i, Role role, int k) const {
    return caps_[(kind_of_[i] * static_cast<size_t>(L_ + 1) + static_cast<size_t>(k)) * 5 +
                 static_cast<size_t>(role)];
  }
  bool usable(size_t i, Role role, int k) const { return cap(i, role, k) + 1e-12 >= F_; }
  static bool test(const uint64_t* b, int s) {
    return b[static_cast<size_t>(s) / 64] >> (s % 64) & 1;
  }
  void or_shifted(uint64_t* to, const uint64_t* from, int k) const;
  // The state set of `mask` in the sets before host i.
  const uint64_t* before(size_t i, int mask) const {
    return &before_[(i * 4 + static_cast<size_t>(mask)) * words_];
  }

  const RoutedInstance& in_;
  // The hosts allowed, but no more than L of a kind: a chain holds at most L hosts and reads no
  // links, so the others of that kind could only take the place of one of those.
  std::vector<bool> allowed_;
  int L_;
  size_t words_;
  double F_ = 0;
  size_t reached_at_ = 0;  // the host after which a chain was found (the hosts' count: none)
  // Capacities are read once per kind of host.
  std::vector<size_t> kind_of_;   // per host
  std::vector<double> caps_;      // [(kind * (L + 1) + k) * 5 + role]
  std::vector<int> longest_;      // per host: the most layers with any capacity
  std::vector<uint64_t> before_;  // [host][mask][word]: the states reached before it
};

// Each host's kind, numbered from 0 in order of first appearance: hosts of one table, LM head time
// and memory limits have the same capacities (a fleet has thousands of hosts of a few kinds).
std::vector<size_t> routed_host_kinds(const RoutedInstance& instance);

}  // namespace meshplan
