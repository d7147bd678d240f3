// A lower bound on the token time of every pipeline plan (reference/solvers.md section 7.4),
// valid for the cost model of SPEC section 7:
//
//   T = sum_j [ sum_{l in S_j} max(phi_l / F_j, B_l / BW_j) + o ] + max(2Vh / F_0, H / BW_0) + hops
//
// with B_l = A_l + kappa_l * context the bytes layer l reads per token and H the LM head's bytes.
//  1. Stages and LM head. A sum of maxima is at least the maximum of the sums, so T's stage and
//     head part is at least max(X_bw, X_flop) with X_bw = sum_l B_l / BW_host(l) + H / BW_0 (and
//     X_flop likewise with FLOPs and F). Each is at least the optimum of its linear relaxation:
//     spread the items (every layer with its resident bytes M_l = W_l + kappa_l * context, and the
//     head with embedding + head bytes) fractionally over all candidate hosts within their usable
//     bytes R_i. Item i's cost per resident byte on host j is d_i * s_j (density B_i / M_i times
//     slowness 1 / BW_j); such a product cost makes the transportation problem solvable greedily:
//     fill the fastest host with the densest bytes first (an exchange of a denser byte on a slower
//     host with a sparser byte on a faster one never costs more). So X_bw >= that greedy fill.
//  2. Overheads. A plan uses at least m* hosts, m* = the fewest hosts whose largest usable bytes
//     add up to the whole model at the context (and at least --min-hosts): T has >= m* * o_min.
//  3. Hops. With m* >= 2 the ring has m >= m* hops, one leaving each rank and one entering each
//     rank: at least the sum of the m* smallest per-host cheapest outgoing hops, and likewise for
//     incoming ones; the larger of the two counts.
// The three parts bound disjoint terms of T, so their sum is a lower bound. It ignores pins and
// --max-hosts, which only remove plans.
#pragma once

#include <string>

#include "solvers/problem/pipeline_cost.hpp"

namespace meshplan {

struct PipelineBound {
  double token_latency_s = 0;
  double bandwidth_s = 0;  // part 1, bandwidth relaxation (stages and head)
  double compute_s = 0;    // part 1, FLOP relaxation
  double overhead_s = 0;   // part 2
  double hops_s = 0;       // part 3
  double in_host_s = 0;    // every layer's in-host all-reduces on the cheapest host (0 if 1 GPU)
  int min_ranks = 1;       // m*
  std::string method;
};

PipelineBound pipeline_lower_bound(const PipelineCostModel& cost, int min_hosts = 1);

// Gap of a plan's token time over the bound, in percent of the bound: the plan is at most this
// much slower than the best plan. 0 when the plan meets the bound.
double gap_percent(double plan_s, double bound_s);

}  // namespace meshplan
