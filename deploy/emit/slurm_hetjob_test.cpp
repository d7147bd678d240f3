// `emit slurm` of a replica plan: one heterogeneous job, a component per replica, each replica's
// engine started on its own nodes by `srun --het-group=K` (run here through a stand-in srun;
// tests/slurm/ has the real controller accept it).
#include "deploy/emit/slurm_hetjob.hpp"

#include <gtest/gtest.h>

#include "deploy/writers/slurm_batch.hpp"
#include "tests/launch_inputs.hpp"

namespace meshplan::slurm_hetjob_test {
namespace {

const char* kReplicas = "tests/fixtures/launch/loopback_replicas_plan.json";

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
    ++n;
  return n;
}

TEST(slurm_hetjob_test, one_component_per_replica_each_started_by_its_het_group) {
  auto in = testing::launch_inputs(testing::kLoopback, kReplicas);
  const std::string script = write_slurm_job(in->input());
  // Three components: node-a, node-b, node-c, with `hetjob` between them.
  EXPECT_NE(script.find("#SBATCH --nodes=1\n#SBATCH --nodelist=node-a\n#SBATCH "
                        "--ntasks-per-node=1\n#SBATCH hetjob\n#SBATCH --nodes=1\n#SBATCH "
                        "--nodelist=node-b\n#SBATCH --ntasks-per-node=1\n#SBATCH hetjob\n"
                        "#SBATCH --nodes=1\n#SBATCH --nodelist=node-c\n"),
            std::string::npos)
      << script;
  EXPECT_EQ(count(script, "#SBATCH hetjob\n"), 2u);
  for (int k = 0; k < 3; ++k)
    EXPECT_NE(script.find("srun --het-group=" + std::to_string(k) +
                          " --nodes=1 --ntasks=1 --ntasks-per-node=1 --nodelist=node-" +
                          std::string(1, static_cast<char>('a' + k))),
              std::string::npos)
        << script;
  // The CPU hosts' replicas run llama.cpp (the plan's default engine there); each starts its
  // llama-server on its own node, beside an rpc-server for its CPU, all three in the one job.
  const std::string rec = testing::run_with_fake_srun(script);
  EXPECT_EQ(count(rec, "arg <llama-server>"), 3u) << rec;
  EXPECT_EQ(count(rec, "arg <rpc-server>"), 3u) << rec;
  EXPECT_EQ(count(rec, "run engine"), 6u) << rec;
  EXPECT_NE(rec.find("srun node-a"), std::string::npos) << rec;
  EXPECT_NE(rec.find("srun node-c"), std::string::npos) << rec;
}

TEST(slurm_hetjob_test, the_engine_option_applies_to_every_replica) {
  auto in = testing::launch_inputs(testing::kLoopback, kReplicas);
  in->launch.engine = "vllm";
  const std::string rec = testing::run_with_fake_srun(write_slurm_job(in->input()));
  EXPECT_EQ(count(rec, "arg <vllm>"), 3u) << rec;
  EXPECT_EQ(count(rec, "arg <llama-server>"), 0u) << rec;
}

}  // namespace
}  // namespace meshplan::slurm_hetjob_test
