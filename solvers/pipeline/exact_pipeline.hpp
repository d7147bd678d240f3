// The exact pipeline search: which hosts, in which ring order, with which contiguous layer
// ranges minimise the token time (SPEC section 7) under every host's memory limit.
//
// Dynamic program, for each choice of head h (rank 0), over states
//   (S = the set of hosts used so far, v = the last of them in ring order, l = layers placed),
// whose value D is the least time of the stages of S, the head's LM head and the hops between
// consecutive hosts of S, over every order of S that starts at h and ends at v and every split of
// layers [0, l) into non-empty contiguous ranges that fit. The future of a state depends only on
// (S, v, l) and h — which hosts are still free, where the next hop starts, which layer comes
// next, and where the ring closes — so the recurrence
//   D(S, u, e) = T_u(e) + o_u + min_{l in [lo_u(e), e)} ( min_{v in S\u} D(S\u, v, l) + hop(v, u) -
//   T_u(l) )
// is exact (T_u: prefix sums of u's layer times; lo_u(e): the lowest start whose range fits u's
// memory, non-decreasing in e, so the inner minimum is a sliding-window minimum). The optimum is
// min over final states of D(S, v, L) + hop(v, h) (no hop for a single host).
//
// Symmetry: hosts with identical figures and links are interchangeable, so S is a vector of
// counts per class and a class's members join the ring in index order; the head is the first
// member of its class. Without identical hosts this is the plain subset DP.
//
// Work: per head, for every state S and every class u in S, a pass over the rows of S\u and one
// sliding window: O(K * sum_S |S| * L). Rows that cannot beat the incumbent (state value plus a
// lower bound of the rest: the fastest host's time of the remaining layers, one more stage
// overhead and two hops), cannot be completed by the remaining hosts' memory, or exceed
// --max-hosts are dropped; pruning only removes states that cannot lead to a strictly better
// plan, so the result stays exact.
#pragma once

#include <optional>

#include "solvers/pipeline/host_classes.hpp"
#include "solvers/problem/search_space.hpp"

namespace meshplan {

// The default limit on subsets up to symmetry (2^12: any 12 hosts).
inline constexpr double kExactSubsetLimit = 4096;

// Searches every subset (up to symmetry) of the hosts listed in `classes`. Returns nullopt when
// there are more than `max_subsets` of them. Otherwise the result is exact: feasible with the
// optimal assignment when some plan is strictly faster than `incumbent`, else not feasible
// (no plan beats the incumbent, which is then optimal).
std::optional<SearchResult> exact_pipeline_search(const SearchSpace& space,
                                                  const HostClasses& classes,
                                                  double incumbent = kInfinity,
                                                  double max_subsets = kExactSubsetLimit);

}  // namespace meshplan
