// One piece of work in a forked child process, with a wall-time limit: the child is killed
// (SIGKILL, by its PID) when it passes the limit, so that a plan that takes minutes cannot hold
// up a benchmark of many. The child's peak memory is its ru_maxrss from wait4(); its time is
// measured inside it, around the work alone (steady clock), and sent back through a pipe with
// the work's result. The child's standard input, output and error are /dev/null: it never
// writes to the terminal.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

namespace meshplan {

struct BoundedRun {
  enum class Status {
    kFinished,   // the work returned; `result` is what it returned
    kOverLimit,  // killed at the time limit
    kCrashed,    // the child died on its own (a signal, an exception, no result)
  };
  Status status = Status::kCrashed;
  double seconds = 0;       // the work's own time (finished), or the limit (over the limit)
  uint64_t peak_bytes = 0;  // the child's peak resident memory, up to its end or its kill
  std::string result;       // finished: the work's text; crashed: what went wrong
};

// Runs `work` in a forked child and waits at most `limit_s` seconds of wall time for it. The
// child starts as a copy of this process, so its peak memory includes what this process held
// then. An exception thrown by `work` is a crash with its message. With `memory_limit_bytes`, the
// child's address space is limited to it (RLIMIT_AS), so that a plan that grows without bound
// ends in std::bad_alloc (a crash) rather than in the machine's out-of-memory killer.
BoundedRun run_bounded(const std::function<std::string()>& work, double limit_s,
                       uint64_t memory_limit_bytes = 0);

// Whether run_bounded applies a memory limit: not under AddressSanitizer, whose shadow memory
// holds terabytes of address space before any limit could be set.
bool memory_limit_applies();

}  // namespace meshplan
