// `emit slurm` of a plan of several replicas: one heterogeneous job, a component per replica
// (`#SBATCH hetjob` between them, sbatch(1) "HETEROGENEOUS JOB SUPPORT"), each asking for its
// replica's nodes and GPUs per node; each replica's engine starts with `srun --het-group=K` over
// its own node script, all replicas at once, and the job ends when they all have.
#pragma once

#include <string>
#include <vector>

namespace meshplan {

struct EmitInput;
struct ReplicaLaunch;

std::string write_slurm_hetjob(const EmitInput& in);
// The same over replicas already placed (`emit all` places them once).
std::string slurm_hetjob_for_replicas(const EmitInput& in,
                                      const std::vector<ReplicaLaunch>& replicas);
// `emit slurm`: the heterogeneous job of a replica plan, else the batch job of one copy.
std::string write_slurm_job(const EmitInput& in);

}  // namespace meshplan
