// The cluster from recorded `scontrol show node -o` outputs (Slurm 22.05's fields), no Slurm.
#include "lib/discovery/slurm_cluster.hpp"

#include <gtest/gtest.h>

#include "lib/core/error.hpp"

namespace meshplan::slurm_cluster_test {
namespace {

constexpr const char* kTwoNodes =
    "NodeName=gpu01 Arch=x86_64 CoresPerSocket=1 CPUAlloc=0 CPUEfctv=8 CPUTot=8 CPULoad=0.00 "
    "AvailableFeatures=(null) ActiveFeatures=(null) Gres=gpu:h100:8(S:0-1) NodeAddr=10.0.0.11 "
    "NodeHostName=gpu01 Version=22.05.8 OS=Linux 6.1.0 RealMemory=1031000 AllocMem=0 "
    "FreeMem=N/A Sockets=8 Boards=1 State=IDLE ThreadsPerCore=1 TmpDisk=0 Weight=1 Owner=N/A "
    "Partitions=debug CfgTRES=cpu=8,mem=1031000M,billing=8,gres/gpu=8 AllocTRES= CapWatts=n/a\n"
    "NodeName=gpu02 CPUTot=16 Gres=gpu:h100:4 NodeAddr=10.0.0.12 RealMemory=512000 "
    "State=MIXED ThreadsPerCore=1\n";

// Answers every command with one recorded result and keeps the command it was given.
class FakeCommand : public LocalCommand {
 public:
  explicit FakeCommand(LocalResult result) : result_(std::move(result)) {}
  LocalResult run(const std::string& command) const override {
    commands.push_back(command);
    return result_;
  }
  mutable std::vector<std::string> commands;

 private:
  LocalResult result_;
};

std::vector<HostTarget> targets(const std::vector<std::string>& hosts) {
  std::vector<HostTarget> out;
  for (const auto& h : hosts)
    out.push_back({h, "", h, 0});
  return out;
}

TEST(slurm_cluster_test, two_nodes_become_two_hosts) {
  FakeCommand scontrol({true, kTwoNodes, 0});
  auto t = targets({"gpu01", "gpu02"});
  SlurmNodes q = query_slurm_nodes(t, scontrol);
  ASSERT_EQ(scontrol.commands.size(), 1u);
  EXPECT_EQ(scontrol.commands[0], "scontrol show node -o gpu01,gpu02 2>&1");
  EXPECT_TRUE(q.warnings.empty());
  Cluster c = slurm_cluster(t, q.nodes, Catalog::builtin());
  ASSERT_EQ(c.hosts.size(), 2u);
  EXPECT_EQ(c.hosts[0].name, "gpu01");
  EXPECT_EQ(c.hosts[1].name, "gpu02");
  EXPECT_TRUE(c.hosts[0].slurm);
  EXPECT_TRUE(c.findings.empty());
}

TEST(slurm_cluster_test, a_node_the_controller_does_not_know_is_named) {
  FakeCommand scontrol({true, kTwoNodes, 0});
  auto t = targets({"gpu01", "gpu02", "gpu09"});
  SlurmNodes q = query_slurm_nodes(t, scontrol);
  try {
    slurm_cluster(t, q.nodes, Catalog::builtin());
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kHostsFailed);
    EXPECT_EQ(std::string(e.what()),
              "1 of 3 Slurm nodes cannot run the model:\n"
              "  gpu09: not a node of this Slurm cluster\n"
              "nothing written");
  }
}

TEST(slurm_cluster_test, scontrol_missing_says_to_install_it) {
  FakeCommand scontrol({true, "sh: 1: scontrol: not found\n", 127});
  try {
    query_slurm_nodes(targets({"gpu01"}), scontrol);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kHostsFailed);
    EXPECT_EQ(std::string(e.what()), "--source scontrol: scontrol is not installed (slurm-client)");
  }
}

TEST(slurm_cluster_test, scontrol_warnings_are_passed_back_not_parsed) {
  FakeCommand scontrol(
      {true, std::string("scontrol: error: slurm_load_partitions: Unable to contact\n") + kTwoNodes,
       0});
  SlurmNodes q = query_slurm_nodes(targets({"gpu01", "gpu02"}), scontrol);
  EXPECT_EQ(q.warnings,
            std::vector<std::string>{"scontrol: error: slurm_load_partitions: Unable to contact"});
  ASSERT_EQ(q.nodes.size(), 2u);
  EXPECT_EQ(q.nodes[1].name, "gpu02");
}

}  // namespace
}  // namespace meshplan::slurm_cluster_test
