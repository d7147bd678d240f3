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
//
// A plan of several replicas (deploy/emit/replica_launch.hpp) is one heterogeneous job: a component
// per replica (`#SBATCH hetjob` between them) with its own nodes and GPUs per node, each
// replica's engine started with `srun --het-group=K`, all at once (deploy/emit/slurm_hetjob.*).
#pragma once

#include <string>
#include <vector>

namespace meshplan {

struct EmitInput;

// One `srun` of a launch: a task on each of `nodes`; background ones start before the next.
struct SlurmStep {
  std::vector<std::string> nodes;
  bool background = false;
};

// What a job (or a component of a heterogeneous one) runs for one plan: its nodes in rank order,
// the GPUs each has, the node script every task runs and the sruns in order.
struct SlurmLaunch {
  std::string engine;  // vllm, torchrun or llama-rpc
  std::vector<std::string> nodes;
  int gpus = 0;
  std::string title;     // one line: the engine over its nodes
  std::string strategy;  // the plan's, "" when none
  std::string node_script;
  std::vector<SlurmStep> steps;
};

SlurmLaunch slurm_launch(const EmitInput& in);

// The srun line of `step`, running the script in `script_var`; `het_group` >= 0 names the
// component of a heterogeneous job.
std::string srun_line(const SlurmStep& step, const std::string& script_var, int het_group = -1);

// The #SBATCH lines that ask for `launch`'s nodes: --nodes, --nodelist, --ntasks-per-node=1 and
// --gpus-per-node when they have GPUs.
std::string sbatch_node_lines(const SlurmLaunch& launch);

// The job of a plan of one copy (see write_slurm_job for any plan).
std::string write_slurm_batch(const EmitInput& in);

// `emit all` writes it for plans over Linux hosts of one GPU count (Slurm schedules Linux nodes,
// and --gpus-per-node asks the same of each).
bool slurm_applies(const EmitInput& in);

}  // namespace meshplan
