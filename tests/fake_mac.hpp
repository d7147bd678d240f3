// Fake macOS commands for tests: small shell scripts named like the real tools (uname, sw_vers,
// sysctl, system_profiler, networksetup, ifconfig, ipconfig, ibv_devices, ibv_devinfo) that print
// one host's files from a replay folder, so that the probe script runs unchanged on Linux.
#pragma once

#include <string>

namespace meshplan::testing {

// Writes the scripts into `bin_dir` (created if needed). A tool whose replay file is missing
// gets no script.
void write_fake_mac_commands(const std::string& replay_dir, const std::string& host,
                             const std::string& bin_dir);

// Replaces (or creates) one fake command with the given shell body.
void write_fake_command(const std::string& bin_dir, const std::string& name,
                        const std::string& body);

}  // namespace meshplan::testing
