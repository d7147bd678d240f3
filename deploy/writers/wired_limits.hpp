// macOS's GPU wired limit, raised where a plan's rank holds more than macOS wires by default.
#pragma once

#include <cstdint>
#include <string>

#include "lib/plan/plan_file_reader.hpp"

namespace meshplan {

// The iogpu.wired_limit_mb each host of a plan needs (the plan's ranks that hold more than macOS
// wires by default), as `sudo sysctl` lines under a comment per host; "" when none needs it.
// `host` keeps one host's line, without the comment.
std::string render_wired_limits(const PlanRanks& plan, const std::string& host = "");

// `sudo sysctl iogpu.wired_limit_mb=MB`: the command `setup --plan` prints and setup.sh runs; 0
// puts back macOS's default.
std::string wired_limit_command(int64_t mb);

}  // namespace meshplan
