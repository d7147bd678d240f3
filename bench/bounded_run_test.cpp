// A forked child under a time limit: its result and time come back, it is killed (not left
// running) past the limit, its peak memory is its own, and it never writes to our output.
#include "bench/bounded_run.hpp"

#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <thread>
#include <vector>

#include "lib/core/error.hpp"
#include "tests/test_support.hpp"

namespace meshplan::bounded_run_test {
namespace {

using namespace std::chrono_literals;

TEST(bounded_run_test, a_finished_child_sends_its_result_and_time) {
  BoundedRun r = run_bounded(
      [] {
        std::this_thread::sleep_for(50ms);
        return std::string("planned\nline two");
      },
      20);
  ASSERT_EQ(r.status, BoundedRun::Status::kFinished) << r.result;
  EXPECT_EQ(r.result, "planned\nline two");
  EXPECT_GE(r.seconds, 0.045);
  EXPECT_LT(r.seconds, 10);
  EXPECT_GT(r.peak_bytes, 0u);
}

TEST(bounded_run_test, a_child_past_the_limit_is_killed) {
  const std::string witness = testing::temp_dir() + "/still-running";
  const auto began = std::chrono::steady_clock::now();
  BoundedRun r = run_bounded(
      [&] {
        std::this_thread::sleep_for(1500ms);
        std::ofstream(witness) << "the child outlived its limit";
        return std::string("late");
      },
      0.2);
  const double waited =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
  EXPECT_EQ(r.status, BoundedRun::Status::kOverLimit);
  EXPECT_EQ(r.seconds, 0.2);
  EXPECT_TRUE(r.result.empty());
  EXPECT_GE(waited, 0.19);
  EXPECT_LT(waited, 1.2);
  // Killed, not abandoned: it never gets to write its witness.
  std::this_thread::sleep_for(2s);
  EXPECT_FALSE(std::filesystem::exists(witness));
}

TEST(bounded_run_test, peak_memory_is_the_childs) {
  auto small = run_bounded([] { return std::string("small"); }, 20);
  auto large = run_bounded(
      [] {
        std::vector<char> block(200u << 20);
        for (size_t i = 0; i < block.size(); i += 4096)
          block[i] = 1;
        return std::string(1, block[4096]);
      },
      20);
  ASSERT_EQ(large.status, BoundedRun::Status::kFinished) << large.result;
  EXPECT_EQ(large.result, "\x01");
  EXPECT_GE(large.peak_bytes, 200ull << 20);
  EXPECT_LT(small.peak_bytes + (150ull << 20), large.peak_bytes);
}

TEST(bounded_run_test, a_child_over_its_memory_limit_fails_to_allocate) {
  if (!memory_limit_applies()) GTEST_SKIP() << "no memory limit under AddressSanitizer";
  auto work = [] {
    std::vector<char> block(2000u << 20);
    for (size_t i = 0; i < block.size(); i += 4096)
      block[i] = 1;
    return std::string("allocated");
  };
  auto r = run_bounded(work, 20, 1000ull << 20);
  EXPECT_EQ(r.status, BoundedRun::Status::kCrashed);
  EXPECT_NE(r.result.find("bad_alloc"), std::string::npos) << r.result;
  EXPECT_LT(r.peak_bytes, 1000ull << 20);
}

TEST(bounded_run_test, an_exception_or_a_signal_is_a_crash) {
  auto thrown = run_bounded([]() -> std::string { throw std::runtime_error("no plan here"); }, 20);
  EXPECT_EQ(thrown.status, BoundedRun::Status::kCrashed);
  EXPECT_EQ(thrown.result, "no plan here");
  auto killed = run_bounded(
      []() -> std::string {
        raise(SIGKILL);
        return "unreachable";
      },
      20);
  EXPECT_EQ(killed.status, BoundedRun::Status::kCrashed);
  EXPECT_NE(killed.result.find("signal 9"), std::string::npos) << killed.result;
  EXPECT_THROW(run_bounded([] { return std::string(); }, 0), Error);
}

TEST(bounded_run_test, the_child_writes_nothing_to_our_output) {
  ::testing::internal::CaptureStdout();
  ::testing::internal::CaptureStderr();
  auto r = run_bounded(
      [] {
        const std::string noise = "noise from the child\n";
        const bool written =
            write(1, noise.data(), noise.size()) > 0 && write(2, noise.data(), noise.size()) > 0;
        return std::string(written ? "done" : "not written");
      },
      20);
  EXPECT_EQ(::testing::internal::GetCapturedStdout(), "");
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
  EXPECT_EQ(r.result, "done");
}

}  // namespace
}  // namespace meshplan::bounded_run_test
