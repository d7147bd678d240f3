// mlx.launch with the MLX hostfile (`emit mlx-hostfile`), the backend and the --env values, running
// mlx-lm's server (--pipeline for a pipeline plan), then per rank its host, MLX_RANK and, for a
// pipeline plan, the plan's layers next to those mlx-lm will load. mlx-lm 0.32.0 (ml-explore/mlx-lm
// @d78bf58, mlx_lm/models/pipeline.py) takes no explicit split: `pipeline()` gives every rank
// len(layers) // size layers (one more to the first len % size ranks) in reverse, rank 0 the
// last ones, so an uneven plan split cannot be passed to it; the output says where they differ.
#pragma once

#include <optional>
#include <string>
#include <utility>

#include "deploy/writers/mlx_env.hpp"
#include "lib/plan/engines.hpp"
#include "topologies/check_report.hpp"

namespace meshplan {

struct EmitInput;
struct LaunchLayout;

inline constexpr int kMlxLmServerPort = 8080;  // mlx_lm.server --port default
// A plan of one rank (one Mac, or one GPU) gets mlx_lm.server alone, without mlx.launch.
std::string write_mlx_launch(const EmitInput& in);

// The ranks mlx.launch would start: one per host, or one per GPU on NVIDIA hosts (nccl).
int mlx_rank_count(const LaunchLayout& layout);

// The check report whose ranks the MLX hostfile lists. mlx-lm's rank 0 holds the last layers, so
// for a pipeline plan over several Macs the plan's hosts are listed last stage first, so that each
// host loads the range the plan gives it; `in.report` otherwise, or when that order is not valid
// for the backend (a JACCL coordinator needs an address off the Thunderbolt ports).
CheckReport mlx_rank_report(const EmitInput& in);
// Whether mlx_rank_report lists the plan's hosts in reverse.
bool mlx_ranks_reversed(const EmitInput& in);

// Sets each rank's plan_rank where mlx_rank_report numbers the ranks other than the plan (a
// pipeline listed last stage first), so that mlx-env names both.
void mark_plan_ranks(const EmitInput& in, std::vector<MlxRankEnv>& ranks);

// "" when mlx-lm would load the plan's layers on every rank, else one line saying it cannot.
std::string mlx_lm_split_note(const EmitInput& in);

}  // namespace meshplan
