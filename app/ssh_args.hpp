// The SSH options every command that talks to hosts takes (discover, setup --apply,
// teardown --apply): user, port, identity, ssh config, known_hosts, host-key policy, timeout.
#pragma once

#include <CLI/CLI.hpp>
#include <memory>
#include <string>

#include "lib/remote/libssh_executor.hpp"

namespace meshplan {

struct SshArgs {
  SshOptions ssh;
  std::string policy = "strict";
};

void add_ssh_options(CLI::App* sub, SshArgs& a, const std::string& timeout_help);
// How to reach a cluster host: its `ssh` target (else its name), named after the host, with
// --user and --port filling in what the target leaves out. `where` names the file for errors.
HostTarget host_target(const std::string& name, const std::string& ssh_target,
                       const std::string& where, const SshArgs& a);

// An input error naming the flag when a value is out of range.
void check_ssh_args(const SshArgs& a);
// The options as the undo script's `ssh` needs them: the policy set, paths made absolute (the
// script may be run from another directory).
SshOptions undo_ssh_options(const SshArgs& a);
// Checks the values and builds the executor; ~/.ssh follows $HOME.
std::unique_ptr<LibsshExecutor> make_ssh_executor(const SshArgs& a);

}  // namespace meshplan
