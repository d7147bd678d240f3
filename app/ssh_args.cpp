#include "app/ssh_args.hpp"

#include <cstdlib>
#include <filesystem>

#include "lib/core/error.hpp"
#include "lib/remote/host_list.hpp"

namespace meshplan {

void add_ssh_options(CLI::App* sub, SshArgs& a, const std::string& timeout_help) {
  sub->add_option("--user", a.ssh.user,
                  "SSH user for hosts without user@ (default: ssh config, then you)");
  sub->add_option("--port", a.ssh.port,
                  "SSH port for hosts without :port (default: ssh config, then 22)");
  sub->add_option("--identity", a.ssh.identity,
                  "Private key to try first (then ssh-agent and the config's keys)");
  sub->add_option("--ssh-config", a.ssh.config_file,
                  "ssh config file (default: ~/.ssh/config and /etc/ssh/ssh_config)");
  sub->add_option("--known-hosts", a.ssh.known_hosts,
                  "known_hosts file (default: ~/.ssh/known_hosts)");
  sub->add_option("--host-key-policy", a.policy,
                  "strict: refuse unknown keys; accept-new: record them")
      ->check(CLI::IsMember({"strict", "accept-new"}))
      ->capture_default_str();
  sub->add_option("--timeout", a.ssh.timeout_s, timeout_help)->capture_default_str();
}

HostTarget host_target(const std::string& name, const std::string& ssh_target,
                       const std::string& where, const SshArgs& a) {
  HostTarget t = parse_target(ssh_target, where);
  t.name = name;
  if (t.user.empty()) t.user = a.ssh.user;
  if (t.port == 0) t.port = a.ssh.port;
  return t;
}

void check_ssh_args(const SshArgs& a) {
  if (a.ssh.port < 0 || a.ssh.port > 65535)
    throw input_error("--port {}: expected 1-65535", a.ssh.port);
  if (!a.ssh.user.empty() && !valid_ssh_word(a.ssh.user))
    throw input_error(
        "--user {}: expected letters, digits, '.', '_' or '-' (not starting with '-')", a.ssh.user);
  if (a.ssh.timeout_s < 1) throw input_error("--timeout {}: expected at least 1", a.ssh.timeout_s);
}

SshOptions undo_ssh_options(const SshArgs& a) {
  SshOptions o = a.ssh;
  o.policy = a.policy == "accept-new" ? HostKeyPolicy::kAcceptNew : HostKeyPolicy::kStrict;
  for (std::string* path : {&o.identity, &o.config_file, &o.known_hosts})
    if (!path->empty()) *path = std::filesystem::absolute(*path).lexically_normal().string();
  return o;
}

std::unique_ptr<LibsshExecutor> make_ssh_executor(const SshArgs& a) {
  check_ssh_args(a);
  SshOptions ssh = a.ssh;
  // ~/.ssh follows $HOME, as the shell's ~ does (libssh alone would use the account's home).
  if (const char* home = std::getenv("HOME"); home && *home)
    ssh.ssh_dir = std::string(home) + "/.ssh";
  ssh.policy = a.policy == "accept-new" ? HostKeyPolicy::kAcceptNew : HostKeyPolicy::kStrict;
  return std::make_unique<LibsshExecutor>(ssh);
}

}  // namespace meshplan
