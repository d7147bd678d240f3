// Fake macOS commands for tests: small shell scripts named like the real tools (uname, sw_vers,
// sysctl, system_profiler, networksetup, ifconfig, ipconfig, ibv_devices, ibv_devinfo) that print
// one host's files from a replay folder, so that the probe script runs unchanged on Linux.
#pragma once

#include <string>
#include <vector>

#include "lib/remote/remote_executor.hpp"

namespace meshplan::testing {

// Writes the scripts into `bin_dir` (created if needed). A tool whose replay file is missing
// gets no script.
void write_fake_mac_commands(const std::string& replay_dir, const std::string& host,
                             const std::string& bin_dir);

// Replaces (or creates) one fake command with the given shell body.
void write_fake_command(const std::string& bin_dir, const std::string& name,
                        const std::string& body);

}  // namespace meshplan::testing

namespace meshplan::testing {

// A Mac whose network keeps state in files under `state_dir`, as the real tools would: `ifconfig`
// (lists; IF up/down; IF inet A netmask M replaces the first address; IF inet A delete),
// `route change|delete PEER -interface IF`, `netstat -rn -f inet`, `uname` (Darwin), `id` (uid
// 501, "admin") and `sudo` (runs the command; refuses with -n when state_dir/sudo_password
// exists). Every changing command is appended to state_dir/log; one listed in state_dir/fail
// fails. The interfaces start as given: "name up address/mask" ("en0 1 10.0.0.5/255.255.255.0",
// "en2 1", "bridge0 1"). The default route is through en0.
void write_stateful_mac(const std::string& bin_dir, const std::string& state_dir,
                        const std::vector<std::string>& interfaces);

// Runs a command locally with /bin/sh as sshd would run it on the target: an empty environment
// but PATH, with bin_root/<target name><bin_suffix> (the host's fake tools) first, and `env`
// (NAME='value' words). The whole remote path except the SSH transport.
class LocalShellExecutor : public RemoteExecutor {
 public:
  explicit LocalShellExecutor(std::string bin_root, std::string bin_suffix = "",
                              std::string env = "")
      : bin_root_(std::move(bin_root)), bin_suffix_(std::move(bin_suffix)), env_(std::move(env)) {}
  ExecResult run(const HostTarget& target, const std::string& command,
                 const std::string& input) override;

 private:
  std::string bin_root_, bin_suffix_, env_;
};

}  // namespace meshplan::testing
