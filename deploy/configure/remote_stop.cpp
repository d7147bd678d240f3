#include "deploy/configure/remote_stop.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <sstream>
#include <thread>

#include "lib/core/shell_quote.hpp"

namespace meshplan {

std::string stop_script(const std::vector<long>& pids, const std::string& program) {
  std::string s;
  for (long pid : pids)
    s += fmt::format(
        "case \"$(ps -p {0} -o comm= 2>/dev/null)\" in *{1}*)\n"
        "  kill {0} 2>/dev/null; i=0\n"
        "  while kill -0 {0} 2>/dev/null && [ $i -lt 20 ]; do sleep 0.1; i=$((i+1)); done\n"
        "  kill -0 {0} 2>/dev/null && echo '@@left {0}';;\n"
        "esac\n",
        pid, shell_quote(program));
  return s + "exit 0\n";
}

StopResult stop_by_pid(RemoteExecutor& executor, const HostTarget& target,
                       const std::vector<long>& pids, const std::string& program, int attempts,
                       std::chrono::milliseconds pause) {
  StopResult r;
  if (pids.empty()) return r;
  r.left = pids;
  for (int attempt = 0; attempt < std::max(1, attempts); ++attempt) {
    if (attempt > 0) std::this_thread::sleep_for(pause);
    ExecResult e = executor.run(target, "/bin/sh -s", stop_script(pids, program));
    if (!e.ok()) {
      r.why = fmt::format("{}: {}", host_failure_name(e.failure), e.message);
      continue;
    }
    r.left.clear();
    std::istringstream lines(e.out);
    std::string line;
    while (std::getline(lines, line))
      if (line.rfind("@@left ", 0) == 0) r.left.push_back(std::atol(line.c_str() + 7));
    r.why = r.left.empty() ? "" : "it did not end on SIGTERM";
    return r;
  }
  return r;
}

}  // namespace meshplan
