#include "deploy/writers/wired_limits.hpp"

#include <fmt/format.h>

namespace meshplan {

std::string render_wired_limits(const PlanRanks& plan, const std::string& host) {
  std::string out;
  for (const PlanRank& r : plan.ranks) {
    if (r.wired_limit_mb <= 0 || (!host.empty() && r.host != host)) continue;
    if (host.empty())
      out += fmt::format("# {}: the plan holds more than macOS wires for the GPU by default\n",
                         r.host);
    out += wired_limit_command(r.wired_limit_mb) + "\n";
  }
  return out;
}

std::string wired_limit_command(int64_t mb) {
  return fmt::format("sudo sysctl iogpu.wired_limit_mb={}", mb);
}

}  // namespace meshplan
