// Time behind an interface, so that tests can pin solve times.
#pragma once

#include <chrono>

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

}  // namespace meshplan
