// `emit slurm` of a plan of several replicas: one heterogeneous job, a component per replica
// (`#SBATCH hetjob` between them, sbatch(1) "HETEROGENEOUS JOB SUPPORT"), each asking for its
// replica's nodes and GPUs per node; each replica's engine starts with `srun --het-group=K` over
// its own node script, all replicas at once, and the job ends when they all have.
#pragma once

#include <string>

namespace meshplan {

struct EmitInput;

std::string write_slurm_hetjob(const EmitInput& in);
// `emit slurm`: the heterogeneous job of a replica plan, else the batch job of one copy.
std::string write_slurm_job(const EmitInput& in);

}  // namespace meshplan
