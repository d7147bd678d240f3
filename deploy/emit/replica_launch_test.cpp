// A plan of several replicas launches each on its own hosts with its own engine's files, under
// replica-N/, with nginx in front weighted by the plan's shares and a checklist in order.
#include "deploy/emit/replica_launch.hpp"
#include "deploy/emit/emit_all.hpp"

#include <gtest/gtest.h>

#include "deploy/emit/launch_guide.hpp"
#include "lib/core/error.hpp"
#include "tests/launch_inputs.hpp"

namespace meshplan::replica_launch_test {
namespace {

const char* kMacAndGpu = "tests/fixtures/launch/mac_and_gpu.yaml";
const char* kMacAndGpuReplicas = "tests/fixtures/launch/mac_and_gpu_replicas_plan.json";

std::vector<std::string> names_of(const std::map<std::string, std::string>& files) {
  std::vector<std::string> out;
  for (const auto& [name, _] : files)
    out.push_back(name);
  return out;
}

// A replica's layout is built once, whichever writer of its launch asks first.
TEST(replica_launch_test, each_replica_builds_its_layout_once) {
  auto in = testing::launch_inputs(kMacAndGpu, kMacAndGpuReplicas);
  const EmitInput input = in->input();
  const std::vector<ReplicaLaunch> replicas = replica_launches(input);
  ASSERT_EQ(replicas.size(), 2u);
  const EmitInput one = replica_input(input, replicas[0]);
  const EmitInput again = replica_input(input, replicas[0]);
  const EmitInput two = replica_input(input, replicas[1]);
  const LaunchLayout& first = one.layout();
  EXPECT_EQ(&again.layout(), &first);
  EXPECT_NE(&two.layout(), &first);
  EXPECT_EQ(first.nodes.size(), 1u);
  EXPECT_EQ(first.nodes[0].host->name, "studio");
}

TEST(replica_launch_test, each_replica_gets_its_engines_files_for_its_hosts_only) {
  auto in = testing::launch_inputs(kMacAndGpu, kMacAndGpuReplicas);
  auto files = emit_all(in->input());
  // The Mac runs mlx-lm, the NVIDIA host vLLM; nothing of one engine lands in the other's folder,
  // and no Linux launcher is written for the Mac.
  EXPECT_EQ(names_of(files),
            (std::vector<std::string>{"LAUNCH.md", "cluster.dot", "inventory.yaml", "nginx.conf",
                                      "replica-1/mlx-launch.sh", "replica-2/vllm.sh"}));
  // One Mac: mlx_lm.server itself, with no hostfile or MLX_RANK.
  EXPECT_NE(files.at("replica-1/mlx-launch.sh").find("mlx_lm.server --model"), std::string::npos);
  EXPECT_EQ(files.at("replica-1/mlx-launch.sh").find("mlx.launch --hostfile"), std::string::npos);
  for (const char* f : {"replica-1/mlx-launch.sh"}) {
    EXPECT_NE(files.at(f).find("studio"), std::string::npos) << f;
    EXPECT_EQ(files.at(f).find("gpu-box"), std::string::npos) << f;
    EXPECT_EQ(files.at(f).find("10.0.0.2"), std::string::npos) << f;
  }
  const std::string& vllm = files.at("replica-2/vllm.sh");
  EXPECT_NE(vllm.find("vllm serve"), std::string::npos) << vllm;
  EXPECT_NE(vllm.find("gpu-box"), std::string::npos) << vllm;
  EXPECT_EQ(vllm.find("studio"), std::string::npos) << vllm;
  // nginx: the Mac's mlx_lm.server and the GPU host's vLLM, weighted 70 / 30.
  const std::string& nginx = files.at("nginx.conf");
  EXPECT_NE(nginx.find("server 10.0.0.1:8080 weight=70;"), std::string::npos) << nginx;
  EXPECT_NE(nginx.find("server 10.0.0.2:8000 weight=30;"), std::string::npos) << nginx;
  EXPECT_EQ(write_nginx(in->input()), nginx) << "emit nginx writes what emit all writes";
  EXPECT_NE(files.at("inventory.yaml").find("gpu-box"), std::string::npos);
  EXPECT_NE(files.at("inventory.yaml").find("studio"), std::string::npos);
  EXPECT_NE(files.at("cluster.dot").find("replica 2 (30 % of the requests)"), std::string::npos)
      << files.at("cluster.dot");
}

TEST(replica_launch_test, the_checklist_starts_each_replica_then_nginx_then_checks_it) {
  auto in = testing::launch_inputs(kMacAndGpu, kMacAndGpuReplicas);
  const std::string guide = emit_all(in->input()).at("LAUNCH.md");
  const size_t one = guide.find("- [ ] Replica 1 (mlx-lm on studio)");
  const size_t one_up = guide.find("curl http://10.0.0.1:8080/v1/models");
  const size_t two = guide.find("- [ ] Replica 2 (vllm on gpu-box)");
  const size_t two_up = guide.find("curl http://10.0.0.2:8000/v1/models");
  const size_t nginx = guide.find("nginx -p \"$PWD\" -c nginx.conf");
  const size_t check = guide.find("curl http://127.0.0.1:8100/v1/models");
  for (size_t at : {one, one_up, two, two_up, nginx, check})
    ASSERT_NE(at, std::string::npos) << guide;
  EXPECT_LT(one, one_up);
  EXPECT_LT(one_up, two);
  EXPECT_LT(two, two_up);
  EXPECT_LT(two_up, nginx);
  EXPECT_LT(nginx, check);
  EXPECT_NE(guide.find("copy `replica-2/vllm.sh` to gpu-box"), std::string::npos) << guide;
  EXPECT_NE(guide.find("| 1 | studio | mlx-lm |"), std::string::npos) << guide;
}

TEST(replica_launch_test, a_named_engine_is_used_everywhere_or_refused_where_it_cannot_run) {
  auto in = testing::launch_inputs(kMacAndGpu, kMacAndGpuReplicas);
  in->plan->engine = "llama-rpc";
  auto files = emit_all(in->input());
  EXPECT_TRUE(files.count("replica-1/llama-rpc.sh"));
  EXPECT_TRUE(files.count("replica-2/llama-rpc.sh"));
  EXPECT_FALSE(files.count("replica-2/vllm.sh"));
  EXPECT_NE(files.at("nginx.conf").find("server 10.0.0.2:8080 weight=30;"), std::string::npos);
  in->plan->engine = "vllm";
  try {
    emit_all(in->input());
    ADD_FAILURE() << "vLLM on a Mac";
  } catch (const Error& e) {
    EXPECT_EQ(exit_code(e.kind()), 2);
    EXPECT_NE(std::string(e.what()).find("engine vllm does not run"), std::string::npos)
        << e.what();
  }
}

TEST(replica_launch_test, exo_replicas_keep_apart_and_serve_on_the_api_port) {
  auto in = testing::launch_inputs(kMacAndGpu, kMacAndGpuReplicas);
  in->plan->engine = "exo";
  in->launch.port = 52000;
  auto files = emit_all(in->input());
  EXPECT_NE(files.at("replica-1/exo.sh").find("--namespace mac-and-gpu-replica-1"),
            std::string::npos)
      << files.at("replica-1/exo.sh");
  EXPECT_NE(files.at("replica-2/exo.sh").find("--namespace mac-and-gpu-replica-2"),
            std::string::npos);
  EXPECT_NE(files.at("nginx.conf").find("server 10.0.0.1:52000 weight=70;"), std::string::npos);
}

TEST(replica_launch_test, nginx_needs_a_plan_of_several_copies) {
  auto one = testing::launch_inputs(testing::kLoopback, testing::kLoopbackPlan);
  try {
    write_nginx(one->input());
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_EQ(exit_code(e.kind()), 2);
    EXPECT_NE(std::string(e.what()).find("one copy of the model"), std::string::npos);
  }
  EXPECT_FALSE(emit_all(one->input()).count("nginx.conf"));
}

}  // namespace
}  // namespace meshplan::replica_launch_test
