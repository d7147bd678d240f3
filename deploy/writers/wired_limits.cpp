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
    out += fmt::format("sudo sysctl iogpu.wired_limit_mb={}\n", r.wired_limit_mb);
  }
  return out;
}

}  // namespace meshplan
