// The interface configuration mlx.distributed_config performs on each Mac, printed: the setup
// steps (topologies/setup_steps) as commands under sudo. `setup` prints them in MLX's per-host
// blocks; `teardown` prints the commands that undo them.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "topologies/subnet_plan.hpp"

namespace meshplan {

// Each setup step's command, in order.
std::vector<std::string> setup_commands(const HostSetup& host);
// The undo of each step teardown takes back, last configured first.
std::vector<std::string> teardown_commands(const HostSetup& host);

// "Setup for <ssh>" / a rule of '=' / the commands / a blank line, per host (MLX's layout).
std::string render_setup(const std::vector<HostSetup>& hosts);
std::string render_teardown(const std::vector<HostSetup>& hosts);
// One block of that layout: "<title> for <host>", its rule, the lines, a blank line.
std::string render_host_block(std::string_view title, std::string_view host,
                              const std::vector<std::string>& lines);
// One host's commands, one per line, for `ssh host sh`.
std::string render_commands(const std::vector<std::string>& commands);

}  // namespace meshplan
