// RemoteExecutor over libssh: one session per call (so one per host and thread), the user's ssh
// config honoured (or --ssh-config), agent and key authentication, host keys checked against
// known_hosts with a strict or accept-new policy (a changed key is always refused).
#pragma once

#include <string>

#include "lib/remote/remote_executor.hpp"

namespace meshplan {

enum class HostKeyPolicy { kStrict, kAcceptNew };

struct SshOptions {
  std::string user;         // for targets without user@; else the ssh config's, else the local user
  int port = 0;             // for targets without :port; else the ssh config's, else 22
  std::string identity;     // private key tried first; "" = agent and the config's/default keys
  std::string config_file;  // "" = ~/.ssh/config and /etc/ssh/ssh_config
  std::string known_hosts;  // "" = the config's UserKnownHostsFile, else ~/.ssh/known_hosts
  std::string ssh_dir;      // what ~/.ssh means (config, known_hosts, default keys); "" = libssh's
  HostKeyPolicy policy = HostKeyPolicy::kStrict;
  int timeout_s = 10;  // connect and authentication; and the longest a command may stay silent
};

class LibsshExecutor : public RemoteExecutor {
 public:
  // Throws an input error when the config or identity file cannot be read.
  explicit LibsshExecutor(SshOptions options);
  ExecResult run(const HostTarget& target, const std::string& command,
                 const std::string& input) override;

 private:
  SshOptions options_;
};

}  // namespace meshplan
