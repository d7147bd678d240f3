// What `setup --apply` and `teardown --apply` read from a host before changing it: who runs the
// commands (root, or a user with password-less sudo), every interface with its IPv4 addresses,
// the host routes (macOS), and the interfaces that carry the SSH session and the default route,
// which are never touched. One constant script prints it all in one SSH session.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace meshplan {

struct InterfaceState {
  std::string name;
  bool up = false;                     // administratively up
  std::vector<std::string> addresses;  // IPv4, "a.b.c.d/p"
  bool has(const std::string& address_with_prefix) const;
};

struct HostState {
  bool macos = false;
  bool root = false;    // uid 0: commands run as they are
  bool sudo = false;    // `sudo -n true` succeeded
  std::string user;     // the login user, for the sudoers line
  std::string ip_path;  // Linux: where `ip` lives, for the sudoers line
  std::vector<InterfaceState> interfaces;
  std::map<std::string, std::string> routes;  // macOS: destination -> interface ("default" too)
  std::string ssh_interface;                  // holds the address the SSH session came in on
  std::string default_interface;              // carries the default route

  const InterfaceState* find(const std::string& name) const;
  // The prefix privileged commands need: "" as root, else "sudo -n ".
  std::string privileged() const { return root ? "" : "sudo -n "; }
  // The line to add to /etc/sudoers (visudo) so that the commands run without a password.
  std::string sudoers_line() const;
};

// The sections of a script's output: "@@name rest" starts section `name`, whose text is `rest`
// (with a newline when present) followed by the lines up to the next "@@" line.
std::map<std::string, std::string> script_sections(std::string_view out);

// Run as `/bin/sh -s` with this on standard input.
const std::string& host_state_script();

// Throws ProbeParseError when the output is not the script's.
HostState parse_host_state(std::string_view out);

}  // namespace meshplan
