// macOS's GPU wired limit, raised where a plan's rank holds more than macOS wires by default.
#pragma once

#include <string>

#include "lib/plan/plan_file_reader.hpp"

namespace meshplan {

// The iogpu.wired_limit_mb each host of a plan needs (the plan's ranks that hold more than macOS
// wires by default), as `sudo sysctl` lines under a comment per host; "" when none needs it.
// `host` keeps one host's line, without the comment.
std::string render_wired_limits(const PlanRanks& plan, const std::string& host = "");

}  // namespace meshplan
