// Stopping, by PID, the processes `check --live` starts on a host (TCP listeners, iperf3
// servers): each PID is stopped only while it is still the program that was started (the PID may
// have been reused), and a host that does not answer is tried again a few times, so that a
// process left running by a cut session is stopped once the host is reachable again. What could
// not be stopped is returned, for the report to name.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "lib/remote/remote_executor.hpp"

namespace meshplan {

struct StopResult {
  std::vector<long> left;  // PIDs still running (all of them when the host never answered)
  std::string why;         // why they could not be stopped
};

// `program` is the process name as `ps -o comm=` prints it ("python3", "iperf3").
StopResult stop_by_pid(RemoteExecutor& executor, const HostTarget& target,
                       const std::vector<long>& pids, const std::string& program, int attempts,
                       std::chrono::milliseconds pause);

// The script (exposed for tests): prints "@@left PID" for each PID that still runs afterwards.
std::string stop_script(const std::vector<long>& pids, const std::string& program);

}  // namespace meshplan
