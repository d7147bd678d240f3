// LAUNCH.md: the ranks, then one numbered section per artifact written, naming the hosts to run
// on in order, and what an engine cannot do with the plan.
#include "deploy/emit/launch_guide.hpp"
#include "deploy/emit/emit_all.hpp"
#include "deploy/emit/emit_formats.hpp"

#include <gtest/gtest.h>

#include "lib/core/error.hpp"
#include "tests/launch_inputs.hpp"

namespace meshplan::launch_guide_test {
namespace {

TEST(launch_guide_test, emit_all_writes_each_applicable_file_and_a_guide_in_order) {
  auto in = testing::launch_inputs(testing::kLoopback, testing::kLoopbackPlan);
  auto files = emit_all(in->input());  // no ssh user: Ray is left out and the guide says why
  EXPECT_FALSE(files.count("ray-cluster.yaml"));
  EXPECT_TRUE(files.count("llama-rpc.sh"));
  // The ranks talk over a network: no Thunderbolt setup; a pipeline plan has no routing table.
  for (const EmitFormat& f : emit_formats())
    EXPECT_EQ(files.count(std::string(f.file)) == 1,
              f.name != "ray-cluster" && f.name != "setup" && f.name != "teardown" &&
                  f.name != "routing" && f.name != "nginx" && f.name != "vllm-disagg" &&
                  f.name != "exo-disagg")
        << f.name;
  const std::string& guide = files.at("LAUNCH.md");
  EXPECT_NE(guide.find("Ray is not written"), std::string::npos);
  size_t mlx = guide.find("## 1. MLX");
  size_t llama = guide.find("## 2. llama.cpp RPC");
  ASSERT_NE(mlx, std::string::npos) << guide;
  EXPECT_LT(mlx, llama);
  EXPECT_EQ(guide.find("Host setup (before any engine)"), std::string::npos);  // no setup step
  EXPECT_NE(guide.find("rpc-server` line of each rank on its host (node-b, node-c), then the "
                       "`llama-server` line on node-a"),
            std::string::npos)
      << guide;
}

TEST(launch_guide_test, emit_all_needs_a_plan_and_leaves_llama_out_of_tensor_plans) {
  auto none = testing::launch_inputs(testing::kStudios);
  EXPECT_THROW(emit_all(none->input()), Error);
  auto tensor =
      testing::launch_inputs(testing::kStudios, "tests/fixtures/launch/studios_tensor_plan.json");
  tensor->launch.user = "admin";
  auto files = emit_all(tensor->input());
  EXPECT_FALSE(files.count("llama-rpc.sh"));
  EXPECT_TRUE(files.count("setup.sh"));  // RDMA over Thunderbolt: bridge0 down first
  EXPECT_NE(files.at("LAUNCH.md").find("## 1. Host setup (before any engine)"), std::string::npos);
  // Macs: no engine runs on Ray, so Ray is left out even with the ssh user known.
  EXPECT_FALSE(files.count("ray-cluster.yaml"));
  EXPECT_NE(files.at("LAUNCH.md").find("no engine of this plan runs on Ray"), std::string::npos);
  EXPECT_NE(files.at("LAUNCH.md").find("llama.cpp RPC is not written"), std::string::npos);
  // Linux launchers (vLLM, torchrun, DeepSpeed, MPI, NCCL) are not written for Macs.
  for (const char* linux_only : {"vllm.sh", "torchrun.sh", "deepspeed.hostfile", ".deepspeed_env",
                                 "openmpi.hostfile", "mpich.hostfile", "nccl-env.sh"})
    EXPECT_FALSE(files.count(linux_only)) << linux_only;
  EXPECT_TRUE(files.count("mlx-launch.sh"));
}

// Two HGX nodes: the Linux launchers, MLX on nccl, llama.cpp for the layer split and, with the
// ssh user, Ray with vLLM on it; each names exactly the plan's two hosts.
TEST(launch_guide_test, emit_all_for_nvidia_hosts_writes_their_engines) {
  auto in = testing::launch_inputs("tests/fixtures/launch/two_hgx_rails.yaml",
                                   "tests/fixtures/launch/two_hgx_pipeline_plan.json");
  in->launch.user = "admin";
  auto files = emit_all(in->input());
  for (const char* f : {"vllm.sh", "torchrun.sh", "deepspeed.hostfile", "openmpi.hostfile",
                        "mpich.hostfile", "nccl-env.sh", "mlx-launch.sh", "mlx-hostfile.json",
                        "llama-rpc.sh", "ray-cluster.yaml", "LAUNCH.md"}) {
    ASSERT_TRUE(files.count(f)) << f;
    const std::string& text = files.at(f);
    EXPECT_NE(text.find("hgx-a"), std::string::npos) << f;
    EXPECT_NE(text.find("hgx-b"), std::string::npos) << f;
  }
  EXPECT_FALSE(files.count("setup.sh"));  // no Thunderbolt
}

}  // namespace
}  // namespace meshplan::launch_guide_test
