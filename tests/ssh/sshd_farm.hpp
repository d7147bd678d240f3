// Throw-away OpenSSH servers on loopback for the SSH integration tests and the discovery
// benchmark: one `sshd -D -e` child per host, each on its own 127.0.0.x address and free port,
// with its own host key, accepting one generated client key. A "fake Mac" host puts a directory
// of fake macOS commands (tests/fake_mac.hpp) first in its sessions' PATH (sshd SetEnv); a
// "real" host runs this machine's own commands. Every sshd is stopped by its PID.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace meshplan::testing {

struct SshHost {
  std::string name;     // alias in ssh_config(), and the cluster host name
  std::string address;  // 127.0.0.x
  int port = 0;
  std::string bin_dir;   // fake commands; empty for a real host
  std::string host_key;  // private host key file (the public one is host_key + ".pub")
  pid_t pid = -1;
};

class SshdFarm {
 public:
  // Empty when /usr/sbin/sshd and ssh-keygen are installed; otherwise why the farm cannot run.
  static std::string unavailable_reason();

  SshdFarm();
  ~SshdFarm();
  SshdFarm(const SshdFarm&) = delete;
  SshdFarm& operator=(const SshdFarm&) = delete;

  // A host whose commands print `replay_host`'s files from `replay_dir`.
  SshHost& add_fake_mac(const std::string& name, const std::string& replay_dir,
                        const std::string& replay_host);
  // A host that runs this machine's commands.
  SshHost& add_real_host(const std::string& name);
  // Starts the sshd of every host not yet running and waits until each accepts connections.
  void start();
  // Stops every sshd (SIGTERM by PID, then waits for it).
  void stop();

  SshHost& host(const std::string& name);
  const std::vector<SshHost>& hosts() const { return hosts_; }
  const std::string& dir() const { return dir_; }
  const std::string& client_key() const { return client_key_; }
  const std::string& user() const { return user_; }
  // An empty home directory for the client (no ~/.ssh of the real user is ever read).
  std::string home() const { return dir_ + "/home"; }

  // An ssh config naming every host (HostName, Port, User, IdentityFile).
  std::string write_ssh_config() const;
  // A known_hosts file with the keys of the named hosts ("[127.0.0.x]:port ssh-ed25519 ...").
  std::string write_known_hosts(const std::vector<std::string>& names,
                                const std::string& file_name) const;
  // Generates a key pair in the farm directory and returns the private key path.
  std::string new_key(const std::string& name) const;
  // The public-key line of a host key or client key file ("ssh-ed25519 AAAA...").
  static std::string public_key(const std::string& private_key);

  // A fresh loopback address (127.0.0.x) no other host of this farm uses.
  std::string next_address();
  // A port on `address` where nothing listens.
  static int free_port(const std::string& address);

 private:
  SshHost& add(const std::string& name, const std::string& bin_dir);
  void start_one(SshHost& h);

  std::string dir_;
  std::string client_key_;
  std::string user_;
  std::vector<SshHost> hosts_;
  int next_octet_ = 0;
};

// A socket that accepts TCP connections on loopback and never says anything.
class SilentListener {
 public:
  explicit SilentListener(const std::string& address);
  ~SilentListener();
  int port() const { return port_; }

 private:
  int fd_ = -1;
  int port_ = 0;
};

}  // namespace meshplan::testing
