// meshplan-bench, the real program: the reduced run finds no violation, and a family it does not
// know is bad usage.
#include <gtest/gtest.h>

#include "tests/test_support.hpp"

namespace meshplan::bench_main_test {
namespace {

using testing::run_meshplan_bench;

TEST(bench_main_test, quick_run_finds_no_violation) {
  auto r = run_meshplan_bench({"--quick", "--families", "two-tier,daisy-chain", "--sizes", "3,13"});
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_NE(r.out.find("two-tier"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("daisy-chain"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("No violations"), std::string::npos) << r.out;
}

TEST(bench_main_test, unknown_family_and_bad_numbers_exit_2) {
  auto r = run_meshplan_bench({"--families", "moon-base"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("moon-base"), std::string::npos) << r.err;
  r = run_meshplan_bench({"--sizes", "3,x"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("--sizes 3,x"), std::string::npos) << r.err;
}

// meshplan itself no longer carries the harness.
TEST(bench_main_test, meshplan_has_no_bench_command) {
  auto r = testing::run_meshplan({"bench", "--quick"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("unknown command \"bench\""), std::string::npos) << r.err;
}

}  // namespace
}  // namespace meshplan::bench_main_test
