// The GPUs inside a pipeline rank: a host of several GPUs runs its layers over gpus/tp groups of
// tp GPUs, one group after another (vLLM's tensor x pipeline inside a node). The layers are shared
// out evenly, the first group (which holds the embedding and head on rank 0) taking fewer when its
// GPUs would not hold an even share. Where the head is on the last rank (llama.cpp RPC), the last
// group holds it.
#pragma once

#include <string>

#include "lib/cluster/host_figures.hpp"
#include "lib/plan/plan.hpp"
#include "solvers/problem/pipeline_cost.hpp"

namespace meshplan {

// Fills r.tp and r.gpu_stages from the rank's layers and its host's figures (nothing for a host
// of one device).
void split_gpu_stages(const PipelineCostModel& cost, const HostFigures& h, RankPlan& r);

// Why a plan's GPU stages cannot run ("" when they can): a group with no layer, or one whose
// share does not fit in its GPUs' memory.
std::string gpu_stage_problem(const Plan& plan);

}  // namespace meshplan
