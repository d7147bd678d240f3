// A Linux test farm of network namespaces: each "host" is a namespace running its own sshd,
// reached from the root namespace over a management veth pair on a private /30, and "cables"
// are further veth pairs between two namespaces. The management range is chosen away from
// every IPv4 network this machine already uses (and away from 192.168.0.0/16, where `setup`
// plans its /30s). Every sshd is stopped by its PID and every namespace removed (with its veths)
// when the farm is destroyed, also after a failed start. Needs root and `ip netns`.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace meshplan::testing {

struct NetnsHost {
  std::string name;       // cluster host name and ssh alias
  std::string netns;      // namespace name
  std::string address;    // the namespace's management address (sshd listens there)
  std::string root_side;  // the management veth's name in the root namespace
  std::string host_key;
  std::string session_env;  // more NAME=VALUE for sshd's SetEnv, e.g. a PATH with a wrapped tool
  pid_t pid = -1;
};

class NetnsFarm {
 public:
  // Empty when the farm can run here; otherwise why not (not root, no `ip netns`, no sshd).
  static std::string unavailable_reason();

  NetnsFarm();
  ~NetnsFarm();
  NetnsFarm(const NetnsFarm&) = delete;
  NetnsFarm& operator=(const NetnsFarm&) = delete;

  // A namespace with its management link (and lo up).
  NetnsHost& add_host(const std::string& name);
  // A veth pair between two hosts' namespaces, both ends up, without addresses.
  void add_cable(const std::string& host_a, const std::string& if_a, const std::string& host_b,
                 const std::string& if_b);
  // Lets the hosts reach each other's management addresses, as on one LAN: a route to the
  // management range in each namespace, and forwarding on the farm's own root-side veths only
  // (the machine's net.ipv4.ip_forward stays as it is). Call after the last add_host.
  void route_management();
  // Starts every sshd, waits until each accepts connections and every IPv6 link-local address
  // has finished duplicate address detection (neighbour discovery needs it).
  void start();
  // Stops the sshds by PID and deletes the namespaces; safe to call twice.
  void stop();
  // Starts a host's sshd again after a test killed it (by its PID, NetnsHost::pid): reaps the old
  // process, killing it first if it still runs.
  void restart_sshd(const std::string& name);

  // Runs `command` inside a host's namespace (sh -c) and returns its standard output; throws
  // when it exits non-zero.
  std::string exec(const std::string& host, const std::string& command) const;
  // The same, returning the exit status instead of throwing.
  int exec_status(const std::string& host, const std::string& command) const;

  NetnsHost& host(const std::string& name);
  const std::vector<NetnsHost>& hosts() const { return hosts_; }
  const std::string& dir() const { return dir_; }
  std::string home() const { return dir_ + "/home"; }
  const std::string& management_range() const { return range_; }
  const std::string& client_key() const { return client_key_; }
  // The root-side address of a host's management link (its gateway).
  std::string gateway(const std::string& name) const;

  std::string write_ssh_config() const;
  std::string write_known_hosts() const;

 private:
  std::string dir_;
  std::string client_key_;
  std::string tag_;    // unique per farm: names of namespaces and root-side veths
  std::string range_;  // "10.213.0.0/16"
  unsigned base_ = 0;  // first address of the range
  std::vector<NetnsHost> hosts_;
};

}  // namespace meshplan::testing
