// meshplan against a real Slurm controller on this machine (tests/slurm/slurm_farm.*): the host
// lists Slurm expands, discovery from the controller inside a real allocation, and the emitted
// sbatch scripts accepted by slurmctld and run to completion by slurmd with a stub engine.
#include <gtest/gtest.h>

#include <fstream>
#include <memory>

#include "lib/remote/slurm_hostlist.hpp"
#include "tests/slurm/slurm_farm.hpp"
#include "tests/test_support.hpp"

namespace meshplan::testing::slurm_cluster_test {
namespace {

class SlurmClusterTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    skip_ = SlurmFarm::unavailable();
    if (!skip_.empty()) return;
    try {
      farm_ = std::make_unique<SlurmFarm>(
          std::vector<std::pair<std::string, int>>{{"gpu01", 8}, {"gpu02", 8}, {"gpu03", 8}});
    } catch (const std::exception& e) {
      error_ = e.what();
    }
  }
  static void TearDownTestSuite() { farm_.reset(); }
  void SetUp() override {
    if (!skip_.empty()) GTEST_SKIP() << skip_;
    ASSERT_TRUE(farm_) << error_;
    // The fake nodes come back to service (ReturnToService=2) once slurmd answers for them.
    ASSERT_TRUE(farm_->wait_idle(4, 90)) << farm_->logs();
  }
  static void write(const std::string& path, const std::string& text) {
    std::ofstream(path) << text;
  }
  static std::string env() { return "SLURM_CONF=" + farm_->conf(); }
  // The controller accepts `script` (sbatch --test-only), and refuses it with `known` replaced by
  // `unknown` (a node it does not have).
  static void expect_checked(const std::string& dir, const std::string& name,
                             const std::string& script, const std::string& known,
                             const std::string& unknown) {
    write(dir + "/" + name, script);
    ShellResult t = shell("sbatch --test-only " + dir + "/" + name, farm_->conf());
    EXPECT_EQ(t.status, 0) << t.out << farm_->logs();
    EXPECT_NE(t.out.find("to start at"), std::string::npos) << t.out;
    std::string bad = script;
    bad.replace(bad.find(known), known.size(), unknown);
    write(dir + "/bad-" + name, bad);
    ShellResult b = shell("sbatch --test-only " + dir + "/bad-" + name, farm_->conf());
    EXPECT_NE(b.status, 0) << b.out;
  }

  static inline std::string skip_, error_;
  static inline std::unique_ptr<SlurmFarm> farm_;
};

// Two gpu nodes on a switch, a pipeline plan over them in the order gpu02, gpu01.
void write_two_node_plan(const std::string& dir) {
  std::ofstream(dir + "/two.yaml")
      << "schema: meshplan.cluster/1\nname: two\nhosts:\n"
         "  - {name: gpu01, os: {kind: linux}, gpus: \"8 x h100-sxm\", memory: 1TiB, slurm: true,\n"
         "     interfaces: [{name: ib0, kind: ethernet, ipv4: 10.1.0.1, prefix: 24}]}\n"
         "  - {name: gpu02, os: {kind: linux}, gpus: \"8 x h100-sxm\", memory: 1TiB, slurm: true,\n"
         "     interfaces: [{name: ib0, kind: ethernet, ipv4: 10.1.0.2, prefix: 24}]}\n"
         "links:\n  - {topology: switch, kind: 100gbe, hosts: all, subnet: 10.1.0.0/24}\n";
  std::ofstream(dir + "/two_plan.json")
      << R"({"schema": "meshplan.plan/2", "strategy": "pipeline", "backend": "ethernet",
 "transport": "network", "ranks": [{"rank": 0, "host": "gpu02", "layers": [0, 40]},
 {"rank": 1, "host": "gpu01", "layers": [40, 80]}]})";
}

// Host lists as Slurm expands them: the same names, in the same order, as `scontrol show
// hostnames` (which needs no controller, only a configuration to read).
TEST_F(SlurmClusterTest, host_lists_expand_as_scontrol_show_hostnames) {
  const std::vector<std::string> lists = {"gpu[01-04,07]",
                                          "a[1-2]b[3-4]",
                                          "a[1-2]b[3-4]c[5-6]",
                                          "a[1-2]b[3-4]c[5-6]d[7-8]",
                                          "x[001-10]",
                                          "x[1-10]",
                                          "a,b,c",
                                          "a b",
                                          "rack[1-2]-n[01-02],login",
                                          "n[9-11]",
                                          "n[0-0]",
                                          "n[3]",
                                          "n[3,1,2]",
                                          "n[1-2],n[1-2]",
                                          "n[00-3]",
                                          "n1[0-2]",
                                          "n[1-2],,m",
                                          "a[1-2][3-4]",
                                          "n-[1-2]",
                                          "n[1,3-4,10-11]",
                                          "n[0001-0003],gpu[7-9]"};
  ASSERT_GE(lists.size(), 20u);
  for (const auto& list : lists) {
    ShellResult r = shell("scontrol show hostnames '" + list + "'", farm_->conf());
    ASSERT_EQ(r.status, 0) << list << ": " << r.out;
    std::string mine;
    for (const auto& name : expand_slurm_hostlist(list))
      mine += name + "\n";
    EXPECT_EQ(mine, r.out) << list;
  }
  // Lists Slurm refuses ("Invalid hostlist"), which meshplan refuses too.
  for (const std::string list : {"n[3-1]", "n[a-b]", "n[1--2]", "n[]", "n[1,]", "n[1-3]-ib"}) {
    ShellResult r = shell("scontrol show hostnames '" + list + "'", farm_->conf());
    EXPECT_NE(r.out.find("Invalid"), std::string::npos) << list << ": " << r.out;
    EXPECT_ANY_THROW(expand_slurm_hostlist(list)) << list;
  }
}

// slurmctld accepts the multi-node plan's script: its nodes, their count and GPUs per node.
TEST_F(SlurmClusterTest, controller_accepts_the_multi_node_script) {
  std::string dir = farm_->dir();
  write_two_node_plan(dir);
  RunResult r = run_meshplan({"emit", "slurm", "-c", dir + "/two.yaml", "--plan",
                              dir + "/two_plan.json", "-o", dir + "/two.sbatch"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string script = read_text(dir + "/two.sbatch");
  EXPECT_NE(script.find("#SBATCH --nodelist=gpu02,gpu01\n"), std::string::npos) << script;
  EXPECT_NE(script.find("#SBATCH --gpus-per-node=8\n"), std::string::npos) << script;
  // The same script with a node the controller does not know is refused by it.
  expect_checked(dir, "two.sbatch", script, "gpu02,gpu01", "gpu02,gpu99");
  // A plan host outside the allocation: exit 2 before anything is written.
  RunResult out = run_meshplan({"emit", "slurm", "-c", dir + "/two.yaml", "--plan",
                                dir + "/two_plan.json", "--allocation", "gpu[01,03]"});
  EXPECT_EQ(out.exit_code, 2);
  EXPECT_NE(out.err.find("gpu02 is not in the Slurm allocation"), std::string::npos) << out.err;
}

// A plan of two replicas (gpu01 + gpu02, and gpu03) is one heterogeneous job: slurmctld accepts
// it, each component on its replica's nodes, and refuses it with a node it does not know.
TEST_F(SlurmClusterTest, controller_accepts_the_heterogeneous_job_of_a_replica_plan) {
  std::string dir = farm_->dir();
  std::ofstream(dir + "/three.yaml")
      << "schema: meshplan.cluster/1\nname: three\nhosts:\n"
         "  - {name: gpu01, os: {kind: linux}, gpus: \"8 x h100-sxm\", memory: 1TiB, slurm: true,\n"
         "     interfaces: [{name: ib0, kind: ethernet, ipv4: 10.1.0.1, prefix: 24}]}\n"
         "  - {name: gpu02, os: {kind: linux}, gpus: \"8 x h100-sxm\", memory: 1TiB, slurm: true,\n"
         "     interfaces: [{name: ib0, kind: ethernet, ipv4: 10.1.0.2, prefix: 24}]}\n"
         "  - {name: gpu03, os: {kind: linux}, gpus: \"8 x h100-sxm\", memory: 1TiB, slurm: true,\n"
         "     interfaces: [{name: ib0, kind: ethernet, ipv4: 10.1.0.3, prefix: 24}]}\n"
         "links:\n  - {topology: switch, kind: 100gbe, hosts: all, subnet: 10.1.0.0/24}\n";
  std::ofstream(dir + "/replicas_plan.json")
      << R"({"schema": "meshplan.plan/2", "strategy": "pipeline", "backend": "ethernet",
 "transport": "network", "ranks": [{"rank": 0, "host": "gpu02", "layers": [0, 40]},
 {"rank": 1, "host": "gpu01", "layers": [40, 80]}],
 "replicas": [
  {"hosts": ["gpu02", "gpu01"], "strategy": "pipeline", "backend": "ethernet",
   "request_share": 0.6, "ranks": [{"rank": 0, "host": "gpu02", "layers": [0, 40]},
   {"rank": 1, "host": "gpu01", "layers": [40, 80]}]},
  {"hosts": ["gpu03"], "strategy": "pipeline", "backend": "none", "request_share": 0.4,
   "ranks": [{"rank": 0, "host": "gpu03", "layers": [0, 80]}]}]})";
  RunResult r = run_meshplan({"emit", "slurm", "-c", dir + "/three.yaml", "--plan",
                              dir + "/replicas_plan.json", "-o", dir + "/replicas.sbatch"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string script = read_text(dir + "/replicas.sbatch");
  EXPECT_NE(script.find("#SBATCH --nodelist=gpu02,gpu01\n#SBATCH --ntasks-per-node=1\n"
                        "#SBATCH --gpus-per-node=8\n#SBATCH hetjob\n#SBATCH --nodes=1\n"
                        "#SBATCH --nodelist=gpu03\n"),
            std::string::npos)
      << script;
  EXPECT_NE(script.find("srun --het-group=1 --nodes=1"), std::string::npos) << script;
  expect_checked(dir, "replicas.sbatch", script, "--nodelist=gpu03", "--nodelist=gpu99");
}

// A one-node plan's script runs under slurmd to the end, the stub engine showing the rank, node
// and variables the plan set.
TEST_F(SlurmClusterTest, one_node_script_runs_to_completion_with_the_stub_engine) {
  std::string dir = farm_->dir();
  const std::string& node = farm_->node();
  write(dir + "/one.yaml",
        "schema: meshplan.cluster/1\nname: one\nhosts:\n  - {name: " + node +
            ", os: {kind: linux}, memory: 64GiB,\n     interfaces: [{name: lo, kind: ethernet, "
            "ipv4: 127.0.0.1, prefix: 8}]}\n");
  write(dir + "/one_plan.json", R"({"schema": "meshplan.plan/2", "strategy": "pipeline",
 "backend": "ethernet", "transport": "local", "ranks": [{"rank": 0, "host": ")" +
                                    node + R"(", "layers": [0, 32]}]})");
  write(dir + "/stub.sh",
        "#!/bin/sh\necho \"stub: $*\"\nenv | grep -E '^(MESHPLAN_|NCCL_|GLOO_|VLLM_)' | sort\n");
  shell("chmod +x " + dir + "/stub.sh");
  RunResult r =
      run_meshplan({"emit", "slurm", "-c", dir + "/one.yaml", "--plan", dir + "/one_plan.json",
                    "--model", "org/model", "-o", dir + "/one.sbatch"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ShellResult s =
      shell("cd " + dir + " && MESHPLAN_ENGINE=" + dir +
                "/stub.sh timeout 120 sbatch --wait --output=" + dir + "/one.out one.sbatch",
            farm_->conf());
  ASSERT_EQ(s.status, 0) << s.out << read_text(dir + "/one.sbatch") << farm_->logs();
  std::string out = read_text(dir + "/one.out");
  // One node: vLLM starts its workers itself, with no master to meet.
  EXPECT_NE(out.find("stub: vllm serve org/model -tp 1 -pp 1\n"), std::string::npos) << out;
  EXPECT_EQ(out.find("--nnodes"), std::string::npos) << out;
  EXPECT_NE(out.find("MESHPLAN_RANK=0\n"), std::string::npos) << out;
  EXPECT_NE(out.find("MESHPLAN_NODE=" + node + "\n"), std::string::npos) << out;
  EXPECT_NE(out.find("NCCL_SOCKET_IFNAME==lo\n"), std::string::npos) << out;
  EXPECT_NE(out.find("GLOO_SOCKET_IFNAME=lo\n"), std::string::npos) << out;
  EXPECT_NE(out.find("VLLM_HOST_IP=127.0.0.1\n"), std::string::npos) << out;
}

// Inside a real allocation, `discover --slurm --source scontrol` finds its node from the
// controller (no SSH); a drained node is refused with exit 3.
TEST_F(SlurmClusterTest, discover_inside_an_allocation_and_refuse_a_drained_node) {
  std::string dir = farm_->dir();
  ShellResult s =
      shell("cd " + dir + " && timeout 120 srun -N1 -w " + farm_->node() + " " + MESHPLAN_BINARY +
                " discover --slurm --source scontrol -o " + dir + "/found.json",
            farm_->conf());
  ASSERT_EQ(s.status, 0) << s.out << farm_->logs();
  std::string json = read_text(dir + "/found.json");
  EXPECT_NE(json.find("\"name\": \"" + farm_->node() + "\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"slurm\": true"), std::string::npos) << json;

  RunResult ok = run_meshplan({"discover", "gpu[01-02]", "--source", "scontrol"}, "", {env()});
  ASSERT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_NE(ok.out.find("\"chip\": \"h100-sxm\""), std::string::npos) << ok.out;

  shell("scontrol update nodename=gpu03 state=drain reason=meshplan-test", farm_->conf());
  RunResult drained = run_meshplan({"discover", "gpu03", "--source", "scontrol"}, "", {env()});
  shell("scontrol update nodename=gpu03 state=resume", farm_->conf());
  EXPECT_EQ(drained.exit_code, 3);
  EXPECT_NE(drained.err.find("gpu03: the controller reports it DRAIN"), std::string::npos)
      << drained.err;
}

}  // namespace
}  // namespace meshplan::testing::slurm_cluster_test
