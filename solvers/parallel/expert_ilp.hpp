// The exact expert placement of one MoE layer as an integer program, solved with GLPK
// (`plan --solver ilp`, and the reference the heuristic is tested against):
//   x[e][i] in {0,1}: rank i holds expert e;  y[e][i] >= 0: the share of e's tokens rank i runs
//   sum_i y[e][i] = 1;  y[e][i] <= x[e][i];  y[e][j] - y[e][i] + x[e][i] <= 1 (copies share
//   equally) sum_e x[e][i] <= capacity_i;  base_i + K expert_i sum_e load_e y[e][i] <= T;  minimise
//   T.
// The heuristic placement is given to the branch and bound as its first incumbent, so the result
// is never worse; a time limit stops the search with the best bound found.
#pragma once

#include <optional>

#include "solvers/parallel/expert_placement.hpp"

namespace meshplan {

struct ExpertIlpResult {
  ExpertPlacement placement;  // placement.lower_bound: the best proven bound
  bool optimal = false;       // the search finished
};

// Refuses (input error) instances with more than `kExpertIlpMaxBinaries` assignment variables.
inline constexpr size_t kExpertIlpMaxBinaries = 4096;

std::optional<ExpertIlpResult> solve_expert_ilp(const ExpertInstance& inst,
                                                const ExpertPlacement* incumbent,
                                                double time_limit_s);

}  // namespace meshplan
