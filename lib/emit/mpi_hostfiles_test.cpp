// Both MPI hostfiles against their documented grammar: Open MPI `HOST slots=N [max_slots=M]`
// with '#' comments (mpirun(1)), MPICH Hydra `host[:nprocs]`; one line per rank in rank order.
// tests/launchers_cli_test.cpp runs both launchers on them.
#include "lib/emit/mpi_hostfiles.hpp"

#include <gtest/gtest.h>

#include <regex>

#include "tests/launch_inputs.hpp"

namespace meshplan {
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

}  // namespace
}  // namespace meshplan
