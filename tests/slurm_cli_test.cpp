// `discover --slurm` and `--source scontrol` through the real binary, with a stand-in scontrol on
// PATH that prints what Slurm 22.05 prints (tests/slurm/ runs the real one); `emit slurm`'s
// input errors.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "tests/launch_inputs.hpp"
#include "tests/test_support.hpp"

namespace meshplan::testing::slurm_cli_test {
namespace {

// A folder with a `scontrol` that answers `show node -o LIST` from canned records.
std::string fake_scontrol() {
  std::string dir = temp_dir();
  std::ofstream(dir + "/scontrol")
      << "#!/bin/sh\n"
         "echo \"$*\" >>\"$0.args\"\n"
         "echo 'NodeName=gpu01 CPUTot=64 Gres=gpu:h100:8(S:0-1) NodeAddr=10.0.0.11 "
         "RealMemory=1031000 State=IDLE ThreadsPerCore=1'\n"
         "echo 'NodeName=gpu02 CPUTot=64 Gres=gpu:h100:8 NodeAddr=10.0.0.12 "
         "RealMemory=1031000 State=MIXED ThreadsPerCore=1'\n"
         "echo 'NodeName=gpu07 CPUTot=64 Gres=gpu:h100:8 NodeAddr=10.0.0.17 RealMemory=1031000 "
         "State=DOWN* Reason=Not responding [slurm@2026-11-26T10:00:00]'\n";
  std::filesystem::permissions(dir + "/scontrol", std::filesystem::perms::owner_all);
  return dir;
}

std::string path_with(const std::string& dir) {
  const char* path = std::getenv("PATH");
  return "PATH=" + dir + ":" + (path ? path : "/usr/bin:/bin");
}

TEST(slurm_cli_test, discover_slurm_reads_the_allocation_from_scontrol) {
  std::string dir = fake_scontrol();
  RunResult r = run_meshplan({"discover", "--slurm", "--source", "scontrol"}, "",
                             {path_with(dir), "SLURM_JOB_NODELIST=gpu[01-02]"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(read_text(dir + "/scontrol.args"), "show node -o gpu01,gpu02\n");
  EXPECT_NE(r.out.find("\"name\": \"gpu01\""), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"name\": \"gpu02\""), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"slurm\": true"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"chip\": \"h100-sxm\""), std::string::npos) << r.out;
  // The file it wrote plans: 8 H100s and a terabyte of memory per node.
  std::string cluster = temp_dir() + "/cluster.json";
  std::ofstream(cluster) << r.out;
  RunResult chips = run_meshplan({"plan", "-c", cluster, "-m", "llama-3.3-70b-4bit"});
  EXPECT_EQ(chips.exit_code, 0) << chips.err;
}

TEST(slurm_cli_test, a_down_node_and_a_bad_host_list_are_refused) {
  std::string dir = fake_scontrol();
  RunResult down =
      run_meshplan({"discover", "gpu[01,07]", "--source", "scontrol"}, "", {path_with(dir)});
  EXPECT_EQ(down.exit_code, 3);
  EXPECT_NE(down.err.find("gpu07: the controller reports it DOWN (State=DOWN*, Reason=Not "
                          "responding"),
            std::string::npos)
      << down.err;
  EXPECT_TRUE(down.out.empty());
  RunResult unknown =
      run_meshplan({"discover", "gpu09", "--source", "scontrol"}, "", {path_with(dir)});
  EXPECT_EQ(unknown.exit_code, 3);
  EXPECT_NE(unknown.err.find("gpu09: not a node of this Slurm cluster"), std::string::npos)
      << unknown.err;
  RunResult bad = run_meshplan({"discover", "--slurm", "--source", "scontrol"}, "",
                               {path_with(dir), "SLURM_JOB_NODELIST=gpu[01-02"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("unbalanced brackets"), std::string::npos) << bad.err;
  RunResult backwards =
      run_meshplan({"discover", "gpu[3-1]", "--source", "scontrol"}, "", {path_with(dir)});
  EXPECT_EQ(backwards.exit_code, 2);
  EXPECT_NE(backwards.err.find("runs backwards"), std::string::npos) << backwards.err;
}

TEST(slurm_cli_test, emit_slurm_refuses_hosts_outside_the_allocation) {
  RunResult r = run_meshplan(
      {"emit", "slurm", "-c", source_path(kLoopback), "--plan", source_path(kLoopbackPlan)}, "",
      {"SLURM_JOB_NODELIST=node-a,node-b"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("node-c is not in the Slurm allocation (node-a,node-b)"), std::string::npos)
      << r.err;
  RunResult ok = run_meshplan({"emit", "slurm", "-c", source_path(kLoopback), "--plan",
                               source_path(kLoopbackPlan), "--allocation", "node-a,node-b,node-c"});
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_NE(ok.out.find("#SBATCH --nodelist=node-b,node-c,node-a\n"), std::string::npos) << ok.out;
}

}  // namespace
}  // namespace meshplan::testing::slurm_cli_test
