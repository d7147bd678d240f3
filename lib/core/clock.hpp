// Time behind an interface, so that tests can pin solve times.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>

namespace meshplan {

class Clock {
 public:
  virtual ~Clock() = default;
  virtual double now_seconds() const = 0;
};

class SteadyClock : public Clock {
 public:
  double now_seconds() const override {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
  }
};

// A clock that only moves when told to.
class FakeClock : public Clock {
 public:
  double now_seconds() const override { return now; }
  double now = 0;
};

// A clock that counts work instead of time: every reading advances it by `tick` seconds. Searches
// that stop at a deadline then stop after a fixed number of steps, whatever else runs on the
// machine, so two runs of one binary print the same plan (MESHPLAN_WORK_CLOCK,
// docs/development.md).
class WorkClock : public Clock {
 public:
  explicit WorkClock(double tick_s) : tick_s_(tick_s) {}
  double now_seconds() const override {
    return tick_s_ * static_cast<double>(readings_.fetch_add(1, std::memory_order_relaxed) + 1);
  }
  double tick_s() const { return tick_s_; }

 private:
  double tick_s_;
  mutable std::atomic<int64_t> readings_{0};
};

}  // namespace meshplan
