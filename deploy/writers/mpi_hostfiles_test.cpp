// Both MPI hostfiles against their documented grammar: Open MPI `HOST slots=N [max_slots=M]`
// with '#' comments (mpirun(1)), MPICH Hydra `host[:nprocs]`; one line per rank in rank order.
// tests/launchers_cli_test.cpp runs both launchers on them.
#include "deploy/writers/mpi_hostfiles.hpp"

#include <gtest/gtest.h>

#include <regex>

#include "deploy/writers/deepspeed_files.hpp"
#include "deploy/writers/torchrun_launch.hpp"
#include "tests/launch_inputs.hpp"

namespace meshplan::mpi_hostfiles_test {
namespace {

TEST(mpi_hostfiles_test, open_mpi_lines_give_each_rank_one_slot_in_rank_order) {
  auto in = testing::launch_inputs(testing::kLoopback, testing::kLoopbackPlan);
  auto lines = testing::command_lines(write_openmpi_hostfile(in->input()));
  ASSERT_EQ(lines.size(), 3u);
  std::regex line(R"(^(\S+) slots=(\d+) max_slots=(\d+)\s+# rank (\d+): \S+$)");
  std::vector<std::string> want = {"node-b", "node-c", "node-a"};
  for (size_t i = 0; i < 3; ++i) {
    std::smatch m;
    ASSERT_TRUE(std::regex_match(lines[i], m, line)) << lines[i];
    EXPECT_EQ(m[1], want[i]);
    EXPECT_EQ(m[2], "1");
    EXPECT_EQ(m[3], "1");
    EXPECT_EQ(m[4], std::to_string(i));
  }
}

TEST(mpi_hostfiles_test, mpich_lines_are_host_colon_count_in_rank_order) {
  auto in = testing::launch_inputs(testing::kLoopback, testing::kLoopbackPlan);
  auto lines = testing::command_lines(write_mpich_hostfile(in->input()));
  EXPECT_EQ(lines, (std::vector<std::string>{"node-b:1", "node-c:1", "node-a:1"}));
}

TEST(mpi_hostfiles_test, without_a_plan_every_host_of_the_backend_gets_a_line) {
  auto in = testing::launch_inputs(testing::kStudios);
  auto lines = testing::command_lines(write_mpich_hostfile(in->input()));
  EXPECT_EQ(lines, (std::vector<std::string>{"m3-ultra-1:1", "m3-ultra-2:1", "m3-ultra-3:1",
                                             "m3-ultra-4:1"}));
}

// A host of 8 GPUs runs 8 processes: torchrun's --nproc_per_node for the same plan, the slots of
// every hostfile (Open MPI and MPICH place a process per slot; DeepSpeed's runner.py counts a
// host's slots as its GPUs, one process each) and the -np / -n of their commands.
TEST(mpi_hostfiles_test, slots_are_the_gpus_of_each_host_as_torchrun_starts_them) {
  auto in = testing::launch_inputs("tests/fixtures/launch/two_hgx_rails.yaml",
                                   "tests/fixtures/launch/two_hgx_pipeline_plan.json");
  std::string torchrun = write_torchrun(in->input());
  ASSERT_NE(torchrun.find("--nproc_per_node=8"), std::string::npos) << torchrun;
  std::string openmpi = write_openmpi_hostfile(in->input());
  EXPECT_EQ(testing::command_lines(openmpi),
            (std::vector<std::string>{"hgx-a slots=8 max_slots=8  # rank 0: hgx-a",
                                      "hgx-b slots=8 max_slots=8  # rank 1: hgx-b"}));
  EXPECT_NE(openmpi.find("-np 16 "), std::string::npos) << openmpi;
  std::string mpich = write_mpich_hostfile(in->input());
  EXPECT_EQ(testing::command_lines(mpich), (std::vector<std::string>{"hgx-a:8", "hgx-b:8"}));
  EXPECT_NE(mpich.find("-n 16 "), std::string::npos) << mpich;
  EXPECT_EQ(testing::command_lines(write_deepspeed_hostfile(in->input())),
            (std::vector<std::string>{"hgx-a slots=8", "hgx-b slots=8"}));
}

}  // namespace
}  // namespace meshplan::mpi_hostfiles_test
