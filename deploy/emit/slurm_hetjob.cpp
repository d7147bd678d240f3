#include "deploy/emit/slurm_hetjob.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "deploy/emit/replica_launch.hpp"
#include "deploy/writers/slurm_batch.hpp"
#include "lib/plan/engine_kind.hpp"

namespace meshplan {

std::string write_slurm_hetjob(const EmitInput& in) {
  return slurm_hetjob_for_replicas(in, replica_launches(in));
}

std::string slurm_hetjob_for_replicas(const EmitInput& in,
                                      const std::vector<ReplicaLaunch>& replicas) {
  std::vector<SlurmLaunch> jobs;
  for (const ReplicaLaunch& r : replicas) {
    // --engine on every replica; without it llama.cpp where the plan's engine is llama.cpp, else
    // vLLM (Slurm's engines: vllm, torchrun, llama-rpc).
    EmitInput one = replica_input(in, r);
    if (one.launch.engine.empty() && is_engine(r.engine, EngineKind::kLlamaRpc))
      one.launch.engine = r.engine;
    jobs.push_back(slurm_launch(one));
  }
  std::string out = "#!/bin/bash\n";
  out += fmt::format("#SBATCH --job-name=meshplan-replicas-{}\n", jobs.front().engine);
  for (size_t k = 0; k < jobs.size(); ++k) {
    if (k > 0) out += "#SBATCH hetjob\n";
    out += sbatch_node_lines(jobs[k]);
  }
  out += fmt::format(
      "# meshplan: {} replicas as one heterogeneous job, component K the replica K + 1; "
      "`meshplan emit nginx` balances the requests over them. Submit with: sbatch FILE\n",
      jobs.size());
  for (size_t k = 0; k < jobs.size(); ++k) {
    out += fmt::format("# Replica {} (het group {}, {:.1f} % of the requests): {}; ranks in order:",
                       k + 1, k, replicas[k].replica.request_share * 100, jobs[k].title);
    for (size_t i = 0; i < jobs[k].nodes.size(); ++i)
      out += fmt::format(" {}={}", i, jobs[k].nodes[i]);
    out += "\n";
  }
  out +=
      "# Slurm sorts each --nodelist, so each node finds its rank by name (SLURMD_NODENAME).\n"
      "# MESHPLAN_ENGINE, when set, runs instead of the engine, with its command line as "
      "arguments.\n"
      "set -eu\n";
  for (size_t k = 0; k < jobs.size(); ++k)
    out += fmt::format("node_script_{}=$(cat <<'MESHPLAN_NODE'\n{}MESHPLAN_NODE\n)\n", k,
                       jobs[k].node_script);
  // Every replica at once, each in a subshell of its own sruns in order; the job fails when one
  // replica does.
  out += "pids=\n";
  for (size_t k = 0; k < jobs.size(); ++k) {
    out += "(\n";
    for (const SlurmStep& step : jobs[k].steps)
      out += "  " + srun_line(step, fmt::format("node_script_{}", k), static_cast<int>(k));
    out += ") &\npids=\"$pids $!\"\n";
  }
  out += "for pid in $pids; do wait \"$pid\"; done\n";
  return out;
}

std::string write_slurm_job(const EmitInput& in) {
  if (in.plan && !launch_replicas(*in.plan).empty()) return write_slurm_hetjob(in);
  return write_slurm_batch(in);
}

}  // namespace meshplan
