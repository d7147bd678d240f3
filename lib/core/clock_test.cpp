#include "lib/core/clock.hpp"

#include <gtest/gtest.h>

namespace meshplan::clock_test {
namespace {

// A work clock moves by one tick a reading, so a deadline is a number of readings.
TEST(clock_test, work_clock_counts_readings) {
  WorkClock clock(0.5);
  EXPECT_DOUBLE_EQ(clock.now_seconds(), 0.5);
  EXPECT_DOUBLE_EQ(clock.now_seconds(), 1.0);
  int readings = 0;
  const double deadline = clock.now_seconds() + 10;
  while (clock.now_seconds() < deadline)
    ++readings;
  EXPECT_EQ(readings, 19);
}

TEST(clock_test, fake_clock_moves_only_when_told) {
  FakeClock clock;
  EXPECT_EQ(clock.now_seconds(), 0);
  clock.now = 3;
  EXPECT_EQ(clock.now_seconds(), 3);
}

}  // namespace
}  // namespace meshplan::clock_test
