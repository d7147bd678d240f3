#include "tests/ssh/sshd_farm.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pwd.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "tests/fake_mac.hpp"
#include "tests/test_support.hpp"

namespace meshplan::testing {
namespace {

constexpr const char* kSshd = "/usr/sbin/sshd";

bool executable(const std::string& path) {
  return access(path.c_str(), X_OK) == 0;
}

std::string find_in_path(const std::string& name) {
  for (const char* dir : {"/usr/bin", "/bin", "/usr/local/bin"}) {
    std::string p = std::string(dir) + "/" + name;
    if (executable(p)) return p;
  }
  return "";
}

void run(const std::string& cmd) {
  if (std::system(cmd.c_str()) != 0) throw std::runtime_error("command failed: " + cmd);
}

sockaddr_in loopback(const std::string& address, int port) {
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  if (inet_pton(AF_INET, address.c_str(), &a.sin_addr) != 1)
    throw std::runtime_error("bad address " + address);
  return a;
}

bool accepts(const std::string& address, int port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a = loopback(address, port);
  bool ok = connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
  close(fd);
  return ok;
}

}  // namespace

std::string SshdFarm::unavailable_reason() {
  if (!executable(kSshd)) return "no /usr/sbin/sshd (install openssh-server)";
  if (find_in_path("ssh-keygen").empty()) return "no ssh-keygen (install openssh-client)";
  return "";
}

SshdFarm::SshdFarm() {
  dir_ = temp_dir();
  std::filesystem::create_directories(home());
  client_key_ = new_key("client_ed25519");
  std::ofstream(dir_ + "/authorized_keys") << public_key(client_key_) << " meshplan-test\n";
  chmod((dir_ + "/authorized_keys").c_str(), 0600);
  const passwd* pw = getpwuid(getuid());
  user_ = pw ? pw->pw_name : "root";
  // sshd needs its privilege separation directory when it runs as root.
  if (getuid() == 0) {
    std::filesystem::create_directories("/run/sshd");
    chmod("/run/sshd", 0755);
  }
}

SshdFarm::~SshdFarm() {
  stop();
}

std::string SshdFarm::new_key(const std::string& name) const {
  std::string path = dir_ + "/" + name;
  if (!std::filesystem::exists(path))
    run("ssh-keygen -q -t ed25519 -N '' -C meshplan-test -f '" + path + "'");
  return path;
}

std::string SshdFarm::public_key(const std::string& private_key) {
  std::istringstream in(read_text(private_key + ".pub"));
  std::string type, key;
  in >> type >> key;
  return type + " " + key;
}

std::string SshdFarm::next_address() {
  return "127.0.0." + std::to_string(10 + next_octet_++);
}

int SshdFarm::free_port(const std::string& address) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a = loopback(address, 0);
  if (bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    close(fd);
    throw std::runtime_error("cannot bind to " + address);
  }
  socklen_t len = sizeof a;
  getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  close(fd);
  return ntohs(a.sin_port);
}

SshHost& SshdFarm::add(const std::string& name, const std::string& bin_dir) {
  SshHost h;
  h.name = name;
  h.address = next_address();
  h.bin_dir = bin_dir;
  h.host_key = new_key("host_" + name);
  hosts_.push_back(h);
  return hosts_.back();
}

SshHost& SshdFarm::add_fake_mac(const std::string& name, const std::string& replay_dir,
                                const std::string& replay_host) {
  std::string bin = dir_ + "/bin-" + name;
  write_fake_mac_commands(replay_dir, replay_host, bin);
  return add(name, bin);
}

SshHost& SshdFarm::add_real_host(const std::string& name) {
  return add(name, "");
}

SshHost& SshdFarm::host(const std::string& name) {
  for (auto& h : hosts_) {
    if (h.name == name) return h;
  }
  throw std::runtime_error("no farm host " + name);
}

void SshdFarm::start_one(SshHost& h) {
  for (int attempt = 0; attempt < 5; ++attempt) {
    h.port = free_port(h.address);
    std::string cfg = dir_ + "/sshd_config-" + h.name;
    std::ofstream out(cfg);
    out << "Port " << h.port << "\nListenAddress " << h.address << "\nHostKey " << h.host_key
        << "\nPidFile " << dir_ << "/sshd-" << h.name << ".pid\nAuthorizedKeysFile " << dir_
        << "/authorized_keys\n"
        << "PasswordAuthentication no\nKbdInteractiveAuthentication no\nPubkeyAuthentication yes\n"
        << "PermitRootLogin prohibit-password\nUsePAM no\nStrictModes no\nMaxStartups "
           "100\nLogLevel VERBOSE\n";
    // SetEnv wins over sshd's defaults: the fake commands come first in PATH, as a user's own
    // would, and HOME points at an empty directory so that the login shell of a fake Mac does not
    // run this machine's ~/.bashrc.
    if (!h.bin_dir.empty())
      out << "SetEnv PATH=" << h.bin_dir << ":/usr/bin:/bin HOME=" << home() << "\n";
    out.close();
    std::string log = dir_ + "/sshd-" + h.name + ".log";
    pid_t pid = fork();
    if (pid < 0) throw std::runtime_error("fork failed");
    if (pid == 0) {
      int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
      dup2(fd, 1);
      dup2(fd, 2);
      int null = open("/dev/null", O_RDONLY);
      dup2(null, 0);
      // -D -e: stay a foreground child logging to stderr; -r: no re-exec per connection, which
      // saves CPU here, where every "host" shares this machine's cores.
      execl(kSshd, kSshd, "-D", "-e", "-r", "-f", cfg.c_str(), static_cast<char*>(nullptr));
      _exit(127);
    }
    h.pid = pid;
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (std::chrono::steady_clock::now() < deadline) {
      int status = 0;
      if (waitpid(pid, &status, WNOHANG) == pid) {
        h.pid = -1;
        break;  // it died (port taken meanwhile?): try another port
      }
      if (accepts(h.address, h.port)) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    if (h.pid > 0) {
      kill(h.pid, SIGKILL);
      waitpid(h.pid, nullptr, 0);
      h.pid = -1;
    }
  }
  throw std::runtime_error("sshd for " + h.name + " did not start; log:\n" +
                           read_text(dir_ + "/sshd-" + h.name + ".log"));
}

void SshdFarm::start() {
  for (auto& h : hosts_) {
    if (h.pid <= 0) start_one(h);
  }
}

void SshdFarm::stop() {
  for (auto& h : hosts_) {
    if (h.pid <= 0) continue;
    kill(h.pid, SIGTERM);
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (waitpid(h.pid, nullptr, WNOHANG) == 0) {
      if (std::chrono::steady_clock::now() > deadline) {
        kill(h.pid, SIGKILL);
        waitpid(h.pid, nullptr, 0);
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    h.pid = -1;
  }
}

std::string SshdFarm::write_ssh_config() const {
  std::string path = dir_ + "/ssh_config";
  std::ofstream out(path);
  for (const auto& h : hosts_) {
    out << "Host " << h.name << "\n  HostName " << h.address << "\n  Port " << h.port << "\n  User "
        << user_ << "\n  IdentityFile " << client_key_ << "\n";
  }
  return path;
}

std::string SshdFarm::write_known_hosts(const std::vector<std::string>& names,
                                        const std::string& file_name) const {
  std::string path = dir_ + "/" + file_name;
  std::ofstream out(path);
  for (const auto& name : names) {
    for (const auto& h : hosts_) {
      if (h.name == name)
        out << "[" << h.address << "]:" << h.port << " " << public_key(h.host_key) << "\n";
    }
  }
  return path;
}

SilentListener::SilentListener(const std::string& address) {
  fd_ = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a = loopback(address, 0);
  if (bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || listen(fd_, 16) != 0)
    throw std::runtime_error("cannot listen on " + address);
  socklen_t len = sizeof a;
  getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len);
  port_ = ntohs(a.sin_port);
}

SilentListener::~SilentListener() {
  if (fd_ >= 0) close(fd_);
}

}  // namespace meshplan::testing
