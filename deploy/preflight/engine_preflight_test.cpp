// The engine's side of `check --live`: its connections with one fix each, the ephemeral port from
// the listener's range, and the hosts' GPUs, HCAs and versions against the file and each other.
#include "deploy/preflight/engine_preflight.hpp"

#include <gtest/gtest.h>

#include "deploy/layout/engine_check.hpp"
#include "deploy/writers/engine_connections.hpp"
#include "lib/plan/engines.hpp"
#include "tests/launch_inputs.hpp"

namespace meshplan::engine_preflight_test {
namespace {

std::unique_ptr<testing::LaunchInputs> hgx(const char* engine) {
  auto in = testing::launch_inputs("tests/fixtures/launch/two_hgx_rails.yaml",
                                   "tests/fixtures/launch/two_hgx_pipeline_plan.json");
  in->report.engine =
      check_engine_launch(*in->topology, in->report, in->plan, *find_engine(engine));
  return in;
}

TEST(engine_preflight_test, vllm_probes_name_their_purpose_and_one_rule) {
  auto in = hgx("vllm");
  std::vector<std::string> notes;
  auto check = engine_launch_check(*in->topology, in->report, in->plan, notes);
  ASSERT_TRUE(check.has_value());
  EXPECT_TRUE(notes.empty());
  EXPECT_EQ(check->summary, "vLLM launch: master port 29501, API 8000, 1 ephemeral per pair");
  ASSERT_EQ(check->probes.size(), 3u);
  EXPECT_EQ(check->probes[0].what, "vLLM --master-port");
  EXPECT_EQ(check->probes[0].listen_host, "hgx-a");
  EXPECT_EQ(check->probes[0].connect_host, "hgx-b");
  // The master listens where VLLM_HOST_IP and NCCL's sockets are: the InfiniBand network.
  EXPECT_EQ(check->probes[0].address, "10.9.0.1");
  EXPECT_EQ(check->probes[0].fix,
            "allow TCP between the nodes on their network: on hgx-a, `iptables -I INPUT -p tcp -s "
            "10.9.0.0/24 -j ACCEPT` (or the same rule in nftables or firewalld)");
  EXPECT_EQ(check->probes[2].port, 0);  // ephemeral: from the live range
  EXPECT_NE(check->probes[2].fix.find("-s 10.9.0.0/24"), std::string::npos);
  ASSERT_EQ(check->nodes.size(), 2u);
  EXPECT_EQ(check->nodes[0].gpus, 8u);
  EXPECT_EQ(check->nodes[0].chip, "h100-sxm");
  EXPECT_FALSE(check->nodes[0].hcas.empty());

  LiveReport live;
  live.launch_facts["hgx-a"].port_range = std::pair{40000, 50000};
  set_ephemeral_ports(*check, live);
  EXPECT_EQ(check->probes[2].port, ephemeral_probe_port(40000, 50000, 0));
}

TEST(engine_preflight_test, llama_rpc_probes_and_mlx_engines_keep_mlx_launch) {
  auto in = hgx("llama-rpc");
  std::vector<std::string> notes;
  auto check = engine_launch_check(*in->topology, in->report, in->plan, notes);
  ASSERT_TRUE(check.has_value());
  EXPECT_EQ(check->summary, "llama.cpp RPC launch: rpc-server port 50052");
  ASSERT_EQ(check->probes.size(), 1u);
  EXPECT_EQ(check->probes[0].connect_host, "hgx-b");

  // Without a plan llama.cpp's launch cannot be laid out: mlx.launch's connections, with a note.
  auto bare = testing::launch_inputs("tests/fixtures/launch/two_hgx_rails.yaml");
  bare->report.engine =
      check_engine_launch(*bare->topology, bare->report, bare->plan, *find_engine("llama-rpc"));
  EXPECT_FALSE(engine_launch_check(*bare->topology, bare->report, bare->plan, notes));
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("TCP connections not tried"), std::string::npos) << notes[0];

  auto none = testing::launch_inputs("tests/fixtures/launch/two_hgx_rails.yaml");
  EXPECT_FALSE(engine_launch_check(*none->topology, none->report, none->plan, notes));
}

LinuxLaunchFacts facts(size_t gpus, const std::string& nccl, const std::string& hca_state) {
  LinuxLaunchFacts f;
  f.nvidia_smi = true;
  for (size_t i = 0; i < gpus; ++i)
    f.gpus.push_back({"NVIDIA H100 80GB HBM3", 81559});
  f.ibv_devinfo = true;
  f.rdma.push_back({"mlx5_0", 1, hca_state, "InfiniBand"});
  f.python = true;
  f.versions = {{"python", "3.11.2"}, {"torch", "2.5.1"}, {"nccl", nccl}, {"vllm", "0.6.4"}};
  return f;
}

TEST(engine_preflight_test, gpus_hcas_and_versions_against_the_file_and_each_other) {
  EngineLaunchCheck check;
  check.engine = "vllm";
  check.nodes = {{"a", 2, "h100-sxm", {"mlx5_0"}}, {"b", 2, "h100-sxm", {"mlx5_0"}}};
  LiveReport live;
  live.launch_facts["a"] = facts(2, "2.21.5", "PORT_ACTIVE");
  live.launch_facts["b"] = facts(1, "2.20.5", "PORT_DOWN");
  std::vector<LiveFinding> findings;
  std::vector<std::string> notes;
  engine_host_findings(check, Catalog::builtin(), live, findings, notes);
  ASSERT_EQ(findings.size(), 3u);
  EXPECT_EQ(findings[0].host, "b");
  EXPECT_EQ(findings[0].problem,
            "nvidia-smi lists 1 GPU (NVIDIA H100 80GB HBM3), the cluster file 2 x h100-sxm");
  EXPECT_EQ(findings[1].problem, "HCA mlx5_0 (NCCL_IB_HCA) port 1 is PORT_DOWN, not PORT_ACTIVE");
  EXPECT_EQ(findings[2].host, "");
  EXPECT_EQ(findings[2].problem,
            "the NCCL version (torch.cuda.nccl.version()) differs: a 2.21.5, b 2.20.5");
  EXPECT_TRUE(notes.empty());

  // Tools missing: notes, not findings.
  live.launch_facts["b"] = LinuxLaunchFacts{};
  live.launch_facts["a"].versions = {{"python", "3.11.2"}};
  findings.clear();
  engine_host_findings(check, Catalog::builtin(), live, findings, notes);
  EXPECT_TRUE(findings.empty());
  EXPECT_EQ(notes, (std::vector<std::string>{
                       "versions not read on a: torch, CUDA and NCCL (no torch), vLLM",
                       "nvidia-smi is not on b: its GPUs were not compared",
                       "ibv_devinfo is not on b: the state of mlx5_0 was not read",
                       "python3 is not on b: its Python, torch, CUDA, NCCL and vLLM versions "
                       "were not read"}));
}

}  // namespace
}  // namespace meshplan::engine_preflight_test
