// `scontrol show node -o` lines as Slurm 22.05 prints them (fields from scontrol(1)).
#include "lib/probes/scontrol_parser.hpp"

#include <gtest/gtest.h>

#include "lib/core/error.hpp"

namespace meshplan::scontrol_parser_test {
namespace {

constexpr const char* kTwoNodes =
    "NodeName=gpu01 Arch=x86_64 CoresPerSocket=1 CPUAlloc=0 CPUEfctv=8 CPUTot=8 CPULoad=0.00 "
    "AvailableFeatures=(null) ActiveFeatures=(null) Gres=gpu:h100:8(S:0-1) NodeAddr=10.0.0.11 "
    "NodeHostName=gpu01 Version=22.05.8 OS=Linux 6.1.0 RealMemory=1031000 AllocMem=0 "
    "FreeMem=N/A Sockets=8 Boards=1 State=IDLE ThreadsPerCore=1 TmpDisk=0 Weight=1 Owner=N/A "
    "Partitions=debug CfgTRES=cpu=8,mem=1031000M,billing=8,gres/gpu=8 AllocTRES= CapWatts=n/a\n"
    "NodeName=gpu02 CPUTot=16 Gres=(null) NodeAddr=10.0.0.12 RealMemory=2000 "
    "State=IDLE+DRAIN ThreadsPerCore=1 Reason=bad fan [root@2026-11-26T12:00:00]\n";

TEST(scontrol_parser_test, nodes_with_gres_memory_state_and_reason) {
  auto nodes = parse_scontrol_nodes(kTwoNodes, "scontrol");
  ASSERT_EQ(nodes.size(), 2u);
  EXPECT_EQ(nodes[0].name, "gpu01");
  EXPECT_EQ(nodes[0].address, "10.0.0.11");
  EXPECT_EQ(nodes[0].gpu_type, "h100");
  EXPECT_EQ(nodes[0].gpus, 8);
  EXPECT_EQ(nodes[0].real_memory_mib, 1031000u);
  EXPECT_EQ(nodes[0].cpus, 8);
  EXPECT_EQ(slurm_unavailable(nodes[0]), "");
  EXPECT_EQ(nodes[1].gpus, 0);
  EXPECT_EQ(nodes[1].reason, "bad fan [root@2026-11-26T12:00:00]");
  EXPECT_EQ(slurm_unavailable(nodes[1]), "DRAIN");
}

TEST(scontrol_parser_test, states_the_controller_will_not_schedule) {
  SlurmNode n;
  for (const auto& [state, why] :
       std::vector<std::pair<std::string, std::string>>{{"IDLE", ""},
                                                        {"MIXED", ""},
                                                        {"ALLOCATED", ""},
                                                        {"IDLE*", ""},
                                                        {"DOWN*", "DOWN"},
                                                        {"DOWN+NOT_RESPONDING", "DOWN"},
                                                        {"MIXED+DRAIN", "DRAIN"},
                                                        {"FAIL", "FAIL"}}) {
    n.state = state;
    EXPECT_EQ(slurm_unavailable(n), why) << state;
  }
}

TEST(scontrol_parser_test, gres_forms_and_gpu_types_to_catalog_chips) {
  auto nodes = parse_scontrol_nodes(
      "NodeName=a Gres=gpu:4\nNodeName=b Gres=gpu:a100:2,gpu:a100:2,shard:8\nNodeName=c Gres=gpu\n",
      "x");
  EXPECT_EQ(nodes[0].gpus, 4);
  EXPECT_EQ(nodes[0].gpu_type, "");
  EXPECT_EQ(nodes[1].gpus, 4);
  EXPECT_EQ(nodes[2].gpus, 1);
  const Catalog& catalog = Catalog::builtin();
  EXPECT_EQ(chip_for_gres_type("h100", catalog)->key, "h100-sxm");
  EXPECT_EQ(chip_for_gres_type("H200", catalog)->key, "h200");
  EXPECT_EQ(chip_for_gres_type("a100-40gb", catalog)->key, "a100-40gb");
  EXPECT_EQ(chip_for_gres_type("nosuchgpu", catalog), nullptr);
}

TEST(scontrol_parser_test, a_node_becomes_a_linux_host_marked_slurm) {
  auto nodes = parse_scontrol_nodes(kTwoNodes, "scontrol");
  std::vector<Finding> findings;
  Host h = slurm_node_host(nodes[0], Catalog::builtin(), findings);
  EXPECT_TRUE(h.slurm);
  EXPECT_EQ(h.os.kind, "linux");
  EXPECT_EQ(h.memory, 1031000ull * 1024 * 1024);
  ASSERT_EQ(h.gpus.size(), 8u);
  EXPECT_EQ(h.gpus[0].chip, "h100-sxm");
  EXPECT_TRUE(findings.empty());
  nodes[0].gpu_type = "mystery";
  slurm_node_host(nodes[0], Catalog::builtin(), findings);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].kind, "unknown-chip");
}

TEST(scontrol_parser_test, lines_that_are_not_node_records_are_refused) {
  EXPECT_THROW(parse_scontrol_nodes("Node gpu09 not found\n", "scontrol"), Error);
  EXPECT_THROW(parse_scontrol_nodes("NodeName=a RealMemory=lots\n", "scontrol"), Error);
  EXPECT_TRUE(parse_scontrol_nodes("\n\n", "scontrol").empty());
}

// A bare word "Reason" (no '=') is not the Reason field: it is skipped like any other word, not
// read past the end of the line (found by the host-list fuzzer).
TEST(scontrol_parser_test, a_bare_reason_word_at_the_end_of_a_line_is_skipped) {
  auto nodes = parse_scontrol_nodes("NodeName=gpu01 State=IDLE Reason", "scontrol");
  ASSERT_EQ(nodes.size(), 1u);
  EXPECT_EQ(nodes[0].name, "gpu01");
  EXPECT_EQ(nodes[0].state, "IDLE");
  EXPECT_EQ(nodes[0].reason, "");
  EXPECT_THROW(parse_scontrol_nodes("# name       0  Reason", "scontrol"), Error);
}

}  // namespace
}  // namespace meshplan::scontrol_parser_test
