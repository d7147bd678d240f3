// `check` on GPU fleets through the real binary: the engine's launch instead of MLX's backends,
// RoCE and InfiniBand written as the docs write them, and LAUNCH.md's troubleshooting.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "tests/test_support.hpp"

namespace meshplan::check_engine_cli_test {
namespace {

using nlohmann::json;
using testing::fixture_path;
using testing::read_text;
using testing::run_meshplan;

const std::string kHgx = "tests/fixtures/launch/two_hgx_rails.yaml";

// Two HGX nodes on InfiniBand with 1 GbE management: vLLM's network and HCAs, not JACCL.
TEST(check_engine_cli_test, two_hgx_nodes_get_vllms_network_and_hcas_not_mlx_backends) {
  auto r = run_meshplan({"check", "-c", kHgx});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("vLLM's launch: data over the ib-ndr network 10.9.0.0/24, NCCL over its "
                       "IB transport"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("hgx-a  ib0        10.9.0.1  mlx5_0,mlx5_1"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("jaccl"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("Thunderbolt)"), std::string::npos) << r.out;

  r = run_meshplan({"check", "-c", kHgx, "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json j = json::parse(r.out);
  EXPECT_EQ(j["mlx_backends_checked"], false);
  EXPECT_TRUE(j["backends"].empty());
  EXPECT_EQ(j["ok"], true);
  EXPECT_EQ(j["engine"]["engine"], "vllm");
  EXPECT_EQ(j["engine"]["transport"], "ib");
  EXPECT_EQ(j["engine"]["hosts"][1]["interface"], "ib0");
  EXPECT_EQ(j["engine"]["hosts"][1]["address"], "10.9.0.2");

  // Asked for, MLX's backends are checked as well.
  r = run_meshplan({"check", "-c", kHgx, "--backend", "ring", "--json"});
  j = json::parse(r.out);
  EXPECT_EQ(j["mlx_backends_checked"], true);
  EXPECT_FALSE(j["backends"].empty());
  EXPECT_EQ(j["engine"]["engine"], "vllm");
}

// The form docs/cluster-file.md gives for a RoCE fabric loads, and the check names its HCAs.
TEST(check_engine_cli_test, a_roce_switch_written_as_the_docs_say_is_checked) {
  const std::string dir = testing::temp_dir();
  const std::string file = dir + "/roce.yaml";
  std::ofstream(file) << R"(hosts:
  - name: g1
    os: {kind: linux}
    gpus: [{name: gpu0, chip: h100-sxm}]
    interfaces: [{name: ens1, kind: ethernet, ipv4: 10.8.0.1, prefix: 24, rdma_device: mlx5_0, mtu: 9000}]
  - name: g2
    os: {kind: linux}
    gpus: [{name: gpu0, chip: h100-sxm}]
    interfaces: [{name: ens1, kind: ethernet, ipv4: 10.8.0.2, prefix: 24, rdma_device: mlx5_0, mtu: 1500}]
links:
  - {topology: switch, kind: 100gbe, rdma: true, hosts: all, subnet: 10.8.0.0/24}
)";
  auto r = run_meshplan({"check", "-c", file});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;  // the MTUs differ
  EXPECT_NE(r.out.find("data over the 100gbe network 10.8.0.0/24"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("different MTUs (g1 ens1 9000, g2 ens1 1500)"), std::string::npos) << r.out;
  EXPECT_EQ(r.err.find("rdma needs"), std::string::npos) << r.err;
  // The fix applied: one MTU, exit 0.
  std::string text = read_text(file);
  text.replace(text.find("mtu: 1500"), 9, "mtu: 9000");
  std::ofstream(file) << text;
  r = run_meshplan({"check", "-c", file});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  std::filesystem::remove_all(dir);
}

// A plan for vLLM on two nodes: its LAUNCH.md says what to do when start-up hangs, with the
// interface and HCA the launch files name.
TEST(check_engine_cli_test, launch_md_says_what_to_do_when_start_up_hangs) {
  const std::string dir = testing::temp_dir();
  auto r = run_meshplan({"emit", "all", "-c", kHgx, "--plan",
                         "tests/fixtures/launch/two_hgx_pipeline_plan.json", "-o", dir + "/out"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string guide = read_text(dir + "/out/LAUNCH.md");
  EXPECT_NE(guide.find("## If start-up hangs"), std::string::npos) << guide;
  EXPECT_NE(guide.find("NCCL_DEBUG=INFO"), std::string::npos) << guide;
  EXPECT_NE(guide.find("ib0"), std::string::npos) << guide;
  EXPECT_NE(guide.find("mlx5_0"), std::string::npos) << guide;
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace meshplan::check_engine_cli_test
