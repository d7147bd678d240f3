// What each engine would start is what was planned, over thousands of generated clusters: each
// seed's cluster (tests/oracle/cluster_generator.*) is planned in process on the work clock, its
// plan file written and read back as `emit` reads it, `emit all` run, and the files read by the
// oracle (tests/oracle/launch_oracle.*), a second statement of each engine's rules, whose reading
// must match the plan and break no rule (tests/oracle/property_run.*). A failing cluster is
// shrunk and printed as a fixture for tests/fixtures/launch_counterexamples/, whose every file is
// also run. MESHPLAN_PROPERTY_CLUSTERS sets the number of latency plans (default 2000; a tenth as
// many throughput plans).
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <iostream>
#include <set>

#include "lib/core/file_system.hpp"
#include "lib/models/model_loader.hpp"
#include "tests/oracle/property_run.hpp"
#include "tests/test_support.hpp"

namespace meshplan::launch_property_test {
namespace {

using oracle::Outcome;
using oracle::Violation;

int clusters_from_env() {
  const char* n = std::getenv("MESHPLAN_PROPERTY_CLUSTERS");
  return n && *n ? std::max(0, std::atoi(n)) : 2000;
}

TEST(launch_property_test, every_engine_starts_what_was_planned) {
  const int n = clusters_from_env();
  const auto began = std::chrono::steady_clock::now();
  const oracle::Tally tally = oracle::run_seeds(n, n / 10);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
  std::cout << "launch property: " << tally.summary(seconds) << "\n";
  EXPECT_EQ(tally.checked, n + n / 10);
  EXPECT_EQ(tally.refused, 0) << "the generator wrote clusters the loader refuses";
  EXPECT_GT(tally.checked - tally.infeasible, tally.checked * 9 / 10)
      << "most generated clusters should hold their model";
  EXPECT_TRUE(tally.per_rule.empty())
      << "launches that differ from their plan:" << tally.counterexamples();
}

// The generator is seeded and nothing else: a seed always gives the same cluster, and the
// loader takes what it writes.
TEST(launch_property_test, generated_cases_are_repeatable) {
  for (uint64_t seed : {0u, 7u, 1000003u}) {
    const oracle::GenCase a = oracle::generate_case(seed, "");
    EXPECT_EQ(oracle::to_yaml(a), oracle::to_yaml(oracle::generate_case(seed, "")));
    EXPECT_NO_THROW(oracle::load_case_cluster(oracle::to_yaml(a), Catalog::builtin()));
    const oracle::FixtureCase f = oracle::read_fixture(oracle::to_yaml(a));
    EXPECT_EQ(f.model, a.model);
  }
}

// The engines' own splits as their sources compute them (vllm/distributed/utils.py
// get_pp_indices, mlx_lm/models/pipeline.py, llama.cpp src/llama-model.cpp load_tensors).
TEST(launch_property_test, oracle_splits_follow_the_engines_sources) {
  EXPECT_EQ(oracle::vllm_even_partition(61, 4), (std::vector<int>{15, 15, 16, 15}));
  EXPECT_EQ(oracle::vllm_even_partition(80, 3), (std::vector<int>{27, 27, 26}));
  EXPECT_EQ(oracle::mlx_pipeline_range(61, 2, 0), (std::pair<int, int>{31, 61}));
  EXPECT_EQ(oracle::mlx_pipeline_range(61, 2, 1), (std::pair<int, int>{0, 30}));
  const std::vector<int> device = oracle::llama_layer_devices(80, {30, 25, 26});
  EXPECT_EQ(device[29], 0);
  EXPECT_EQ(device[30], 1);
  EXPECT_EQ(device[54], 1);
  EXPECT_EQ(device[55], 2);
  EXPECT_EQ(device[80], 2);  // the output layer
}

// A vLLM launch that breaks its rules is read as breaking them: -tp 3 of a 32-head model, a
// partition of the wrong length, VLLM_HOST_IP on another interface than Gloo's, and a node
// asked for more GPUs than it has.
TEST(launch_property_test, oracle_reads_a_broken_vllm_launch) {
  const Cluster cluster = oracle::load_case_cluster(R"(schema: meshplan.cluster/1
hosts:
  - name: a
    os: linux
    gpus: "3 x h100-sxm"
    interfaces:
      - {name: eno1, kind: ethernet, ipv4: 10.1.0.1, prefix: 24, speed_gbps: 1}
      - {name: ib0, kind: infiniband, ipv4: 10.2.0.1, prefix: 24, speed_gbps: 400, rdma_device: mlx5_0}
  - name: b
    os: linux
    gpus: "2 x h100-sxm"
    interfaces:
      - {name: eno1, kind: ethernet, ipv4: 10.1.0.2, prefix: 24, speed_gbps: 1}
links:
  - {kind: 1gbe, hosts: [a, b], subnet: 10.1.0.0/24}
)",
                                                    Catalog::builtin());
  RealFileSystem fs;
  const ModelDesc model = load_model("llama-3.1-8b-bf16", "", fs);
  const std::string env = "NCCL_SOCKET_IFNAME==ib0 GLOO_SOCKET_IFNAME=ib0 NCCL_IB_HCA==mlx5_0:1 ";
  const std::map<std::string, std::string> files = {
      {"vllm.sh",
       "# node 0: a\nVLLM_HOST_IP=10.1.0.1 " + env +
           "VLLM_PP_LAYER_PARTITION=16,16 vllm serve M -tp 3 -pp 2 --nnodes 2 --node-rank 0 "
           "--master-addr 10.1.0.1\n# node 1: b\nVLLM_HOST_IP=10.1.0.2 " +
           env +
           "VLLM_PP_LAYER_PARTITION=16,16 vllm serve M -tp 3 -pp 2 --nnodes 2 --node-rank 1 "
           "--master-addr 10.1.0.1 --headless\n"}};
  const oracle::OracleReading reading = oracle::read_launches(files, cluster, model);
  std::set<std::string> rules;
  for (const Violation& v : reading.violations)
    rules.insert(v.rule);
  for (const char* rule : {"vllm-tp-divides-heads", "vllm-host-ip-interface", "vllm-gpus-on-node",
                           "gloo-ifname", "nccl-ib-hca"})
    EXPECT_TRUE(rules.count(rule)) << rule;
  EXPECT_FALSE(rules.count("vllm-pp-partition"));
  ASSERT_EQ(reading.launches.size(), 1u);
  const oracle::LaunchReading& launch = reading.launches.front();
  ASSERT_EQ(launch.hosts.size(), 2u);
  EXPECT_EQ(launch.hosts[0].processes, 3);
  EXPECT_EQ(launch.hosts[0].layers, (std::pair<int, int>{0, 16}));
  EXPECT_EQ(launch.hosts[1].layers, (std::pair<int, int>{16, 32}));
}

TEST(launch_property_test, saved_counterexamples_hold) {
  const std::string folder = testing::source_path("tests/fixtures/launch_counterexamples");
  if (!std::filesystem::exists(folder)) GTEST_SKIP() << "no saved counterexamples";
  for (const auto& entry : std::filesystem::directory_iterator(folder)) {
    if (entry.path().extension() != ".yaml") continue;
    const oracle::FixtureCase f = oracle::read_fixture(testing::read_text(entry.path().string()));
    const Outcome o = oracle::run_case(f.yaml, f.model, f.objective);
    EXPECT_NE(o.kind, Outcome::kRefused) << entry.path();
    for (const Violation& v : o.violations)
      ADD_FAILURE() << entry.path().filename() << ": " << v.rule << ": " << v.detail;
  }
}

}  // namespace
}  // namespace meshplan::launch_property_test
