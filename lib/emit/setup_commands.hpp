// The interface configuration mlx.distributed_config performs on each Mac, as commands: take the
// Thunderbolt Bridge down, give each cable's interface its /30 address and route the peer through
// it. `setup` prints them in MLX's per-host blocks; `teardown` prints the commands that undo them.
#pragma once

#include <string>
#include <vector>

#include "lib/plan/plan_ranks.hpp"
#include "lib/topologies/subnet_plan.hpp"

namespace meshplan {

inline constexpr const char* kNetmask30 = "255.255.255.252";

// sudo ifconfig bridge0 down, then per link: sudo ifconfig <if> inet <ip> netmask 255.255.255.252
// and sudo route change <peer> -interface <if>.
std::vector<std::string> setup_commands(const HostSetup& host);
// The reverse: delete each route and address (last configured first), then bridge0 up.
std::vector<std::string> teardown_commands(const HostSetup& host);

// "Setup for <ssh>" / a rule of '=' / the commands / a blank line, per host (MLX's layout).
std::string render_setup(const std::vector<HostSetup>& hosts);
std::string render_teardown(const std::vector<HostSetup>& hosts);
// One host's commands, one per line, for `ssh host sh`.
// The iogpu.wired_limit_mb each host of a plan needs (the plan's ranks that hold more than macOS
// wires by default), as `sudo sysctl` lines under a comment per host; "" when none needs it.
// `host` keeps one host's line, without the comment.
std::string render_wired_limits(const PlanRanks& plan, const std::string& host = "");

std::string render_commands(const std::vector<std::string>& commands);

}  // namespace meshplan
