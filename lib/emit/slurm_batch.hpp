// `emit slurm`: the plan as one sbatch script. The #SBATCH lines ask for the plan's nodes
// (--nodes, --nodelist in rank order, --ntasks-per-node=1: one engine launcher per node, which
// starts a process per GPU itself, --gpus-per-node from the plan's hosts); `srun` then runs one
// node script on every node. Slurm sorts --nodelist by its own node table (sbatch(1): "the node
// names will be sorted by Slurm"), so SLURM_NODEID need not be the plan's rank: each node finds
// its rank by its name (SLURMD_NODENAME), exports the NCCL/Gloo variables of `nccl-env` and its
// engine's, and runs the engine: vLLM's multi-node form (--nnodes, --node-rank, --master-addr on
// rank 0), torchrun with c10d rendezvous on rank 0's address, or llama.cpp's rpc-servers first
// and then llama-server on the last rank. MESHPLAN_ENGINE, when set in the job's environment,
// runs instead of the engine with the engine's command line as its arguments (a stub for tests).
#pragma once

#include <string>

namespace meshplan {

struct EmitInput;

std::string write_slurm_batch(const EmitInput& in);

// `emit all` writes it for plans over Linux hosts of one GPU count (Slurm schedules Linux nodes,
// and --gpus-per-node asks the same of each).
bool slurm_applies(const EmitInput& in);

}  // namespace meshplan
