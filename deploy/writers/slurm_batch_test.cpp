// The sbatch script, run through a stand-in `srun` that starts the node script on each listed
// node with SLURMD_NODENAME set, as slurmd does; tests/slurm/ runs it under a real slurmd.
#include "deploy/writers/slurm_batch.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "lib/core/error.hpp"
#include "tests/launch_inputs.hpp"

namespace meshplan::slurm_batch_test {
namespace {

TEST(slurm_batch_test, vllm_job_asks_for_the_plans_nodes_and_runs_each_rank_by_name) {
  auto in = testing::launch_inputs(testing::kLoopback, testing::kLoopbackPlan);
  std::string script = write_slurm_batch(in->input());
  EXPECT_NE(script.find("#SBATCH --nodes=3\n#SBATCH --nodelist=node-b,node-c,node-a\n"
                        "#SBATCH --ntasks-per-node=1\n"),
            std::string::npos)
      << script;
  EXPECT_EQ(script.find("--gpus-per-node"), std::string::npos) << script;  // no GPUs
  std::string rec = testing::run_with_fake_srun(script);
  // node-b is rank 0 and the master; node-a, rank 2, a headless worker with its own variables.
  EXPECT_NE(rec.find("run engine\narg <vllm>\narg <serve>\narg <MODEL>\narg <-tp>\narg <1>\n"
                     "arg <-pp>\narg <3>\narg <--nnodes>\narg <3>\narg <--node-rank>\narg <0>\n"
                     "arg <--master-addr>\narg <127.0.0.2>\n"),
            std::string::npos)
      << rec;
  EXPECT_NE(rec.find("arg <--node-rank>\narg <2>\narg <--master-addr>\narg <127.0.0.2>\n"
                     "arg <--master-port>\narg <29501>\narg <--headless>\n"
                     "env NCCL_SOCKET_IFNAME <=lo>\nenv GLOO_SOCKET_IFNAME <lo>\n"
                     "env NCCL_IB_HCA <=mlx5_0:1>\nenv VLLM_HOST_IP <127.0.0.1>\n"),
            std::string::npos)
      << rec;
}

TEST(slurm_batch_test, torchrun_rendezvous_on_rank_0) {
  auto in = testing::launch_inputs(testing::kLoopback, testing::kLoopbackPlan);
  in->launch.engine = "torchrun";
  std::string rec = testing::run_with_fake_srun(write_slurm_batch(in->input()));
  EXPECT_NE(rec.find("arg <torchrun>\narg <--nnodes=3>\narg <--nproc_per_node=1>\n"
                     "arg <--node_rank=1>\narg <--rdzv_backend=c10d>\n"
                     "arg <--rdzv_endpoint=127.0.0.2:29500>\n"),
            std::string::npos)
      << rec;
}

// The rpc-servers start as one background step on every rank but the last, then llama-server.
TEST(slurm_batch_test, llama_rpc_servers_then_the_main_process) {
  auto in = testing::launch_inputs(testing::kLoopback, testing::kLoopbackPlan);
  in->launch.engine = "llama-rpc";
  std::string script = write_slurm_batch(in->input());
  size_t servers = script.find(
      "--nodelist=node-b,node-c --kill-on-bad-exit=1 /bin/bash -c "
      "\"$node_script\" &\n");
  size_t main = script.find(
      "--nodelist=node-a --kill-on-bad-exit=1 /bin/bash -c "
      "\"$node_script\"\n");
  ASSERT_NE(servers, std::string::npos) << script;
  ASSERT_NE(main, std::string::npos) << script;
  EXPECT_LT(servers, main);
  std::string rec = testing::run_with_fake_srun(script);
  EXPECT_NE(rec.find("arg <rpc-server>\narg <-H>\narg <127.0.0.2>\n"), std::string::npos) << rec;
  EXPECT_NE(rec.find("arg <llama-server>"), std::string::npos) << rec;
}

TEST(slurm_batch_test, plan_hosts_outside_the_allocation_and_unknown_engines_are_refused) {
  auto in = testing::launch_inputs(testing::kLoopback, testing::kLoopbackPlan);
  in->launch.allocation = {"node-a", "node-b"};
  try {
    write_slurm_batch(in->input());
    FAIL() << "accepted a host outside the allocation";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kBadInput);
    EXPECT_NE(std::string(e.what()).find("node-c is not in the Slurm allocation"),
              std::string::npos)
        << e.what();
  }
  in->launch.allocation = {};
  in->launch.engine = "sglang";
  EXPECT_THROW(write_slurm_batch(in->input()), Error);
}

TEST(slurm_batch_test, applies_to_linux_plans_only) {
  auto linux_in = testing::launch_inputs(testing::kLoopback, testing::kLoopbackPlan);
  EXPECT_TRUE(slurm_applies(linux_in->input()));
  auto macs = testing::launch_inputs(testing::kStudios);
  EXPECT_FALSE(slurm_applies(macs->input()));
}

}  // namespace
}  // namespace meshplan::slurm_batch_test
