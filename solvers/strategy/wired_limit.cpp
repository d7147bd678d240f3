#include "solvers/strategy/wired_limit.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>

#include "lib/core/units.hpp"

namespace meshplan {

void mark_wired_limits(Plan& plan, const PlanningProblem& problem) {
  std::vector<std::string> hosts;
  for (RankPlan& r : plan.ranks) {
    for (size_t i = 0; i < problem.size(); ++i) {
      const HostFigures& h = problem.host(i);
      if (h.name != r.host || h.default_wired_bytes <= 0 || r.total_bytes <= h.default_wired_bytes)
        continue;
      // Raise it to what the plan counted as usable (memory less the OS reserve), so the plan's
      // own margin stays.
      const double target = std::max(h.usable_bytes + 0.0, r.total_bytes);
      r.wired_limit_mb = static_cast<int64_t>(std::ceil(target / (1024.0 * 1024.0)));
      hosts.push_back(fmt::format(
          "{} (holds {}, macOS wires {} by default: sudo sysctl "
          "iogpu.wired_limit_mb={})",
          r.host, format_gib(r.total_bytes), format_gib(h.default_wired_bytes), r.wired_limit_mb));
    }
  }
  if (!hosts.empty())
    plan.notes.push_back(fmt::format(
        "raise the GPU wired limit before loading on {}; `meshplan setup --plan` prints the "
        "commands",
        fmt::join(hosts, "; ")));
}

}  // namespace meshplan
