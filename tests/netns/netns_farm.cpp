#include "tests/netns/netns_farm.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <thread>

#include "tests/ssh/sshd_farm.hpp"
#include "tests/test_support.hpp"

namespace meshplan::testing {
namespace {

constexpr const char* kSshd = "/usr/sbin/sshd";

// Runs a command line, returning its standard output and exit status.
std::pair<std::string, int> capture(const std::string& cmd) {
  std::string out;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return {"", -1};
  std::array<char, 4096> buf{};
  size_t n = 0;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0)
    out.append(buf.data(), n);
  int status = pclose(p);
  return {out, WIFEXITED(status) ? WEXITSTATUS(status) : -1};
}

void must(const std::string& cmd) {
  auto [out, rc] = capture(cmd + " 2>&1");
  if (rc != 0)
    throw std::runtime_error("command failed (" + std::to_string(rc) + "): " + cmd + "\n" + out);
}

std::string sh_quoted(const std::string& s) {
  std::string q = "'";
  for (char c : s)
    q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

uint32_t to_number(const std::string& address) {
  in_addr a{};
  if (inet_pton(AF_INET, address.c_str(), &a) != 1) return 0;
  return ntohl(a.s_addr);
}

std::string to_text(uint32_t v) {
  in_addr a{};
  a.s_addr = htonl(v);
  char buf[INET_ADDRSTRLEN];
  inet_ntop(AF_INET, &a, buf, sizeof buf);
  return buf;
}

bool accepts(const std::string& address, int port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  inet_pton(AF_INET, address.c_str(), &a.sin_addr);
  bool ok = connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
  close(fd);
  return ok;
}

// Every IPv4 network configured in the root namespace, as (first, last) address.
std::vector<std::pair<uint32_t, uint32_t>> used_networks() {
  std::vector<std::pair<uint32_t, uint32_t>> used;
  auto doc = nlohmann::json::parse(capture("ip -j -4 addr show").first, nullptr, false);
  if (!doc.is_array()) return used;
  for (const auto& link : doc) {
    if (!link.contains("addr_info")) continue;
    for (const auto& a : link["addr_info"]) {
      if (!a.contains("local") || !a.contains("prefixlen")) continue;
      uint32_t v = to_number(a["local"].get<std::string>());
      int p = a["prefixlen"].get<int>();
      uint32_t mask = p == 0 ? 0 : ~uint32_t{0} << (32 - p);
      used.emplace_back(v & mask, (v & mask) | ~mask);
    }
  }
  return used;
}

}  // namespace

std::string NetnsFarm::unavailable_reason() {
  if (geteuid() != 0) return "needs root (network namespaces and veth pairs)";
  if (access(kSshd, X_OK) != 0) return "no /usr/sbin/sshd (install openssh-server)";
  if (capture("ip netns list 2>&1").second != 0) return "`ip netns` does not work here";
  std::string probe = "mpcheck" + std::to_string(getpid());
  if (capture("ip netns add " + probe + " 2>&1").second != 0)
    return "cannot create a network namespace here";
  capture("ip netns del " + probe + " 2>&1");
  return "";
}

NetnsFarm::NetnsFarm() {
  dir_ = temp_dir();
  std::filesystem::create_directories(home());
  tag_ = std::to_string(getpid() % 100000);
  must("ssh-keygen -q -t ed25519 -N '' -C meshplan-test -f " + sh_quoted(dir_ + "/client"));
  client_key_ = dir_ + "/client";
  std::ofstream(dir_ + "/authorized_keys") << SshdFarm::public_key(client_key_) << "\n";
  chmod((dir_ + "/authorized_keys").c_str(), 0600);
  std::filesystem::create_directories("/run/sshd");
  // The first candidate /16 that overlaps nothing configured here.
  auto used = used_networks();
  for (const char* candidate :
       {"10.213.0.0", "10.97.0.0", "172.30.0.0", "172.22.0.0", "10.151.0.0"}) {
    uint32_t lo = to_number(candidate), hi = lo | 0xffffu;
    bool clash = false;
    for (const auto& [a, b] : used)
      clash = clash || (a <= hi && lo <= b);
    if (!clash) {
      base_ = lo;
      range_ = std::string(candidate) + "/16";
      break;
    }
  }
  if (range_.empty()) throw std::runtime_error("no free private /16 for the management links");
}

NetnsFarm::~NetnsFarm() {
  stop();
}

NetnsHost& NetnsFarm::add_host(const std::string& name) {
  size_t i = hosts_.size();
  NetnsHost h;
  h.name = name;
  h.netns = "mp" + tag_ + "-" + std::to_string(i);
  h.root_side = "mpm" + tag_ + "x" + std::to_string(i);  // at most 15 characters
  uint32_t net = base_ + static_cast<uint32_t>(4 * (i + 1));
  h.address = to_text(net + 2);
  hosts_.push_back(h);  // recorded first: stop() removes it even if what follows fails
  NetnsHost& r = hosts_.back();
  must("ip netns add " + r.netns);
  must("ip link add " + r.root_side + " type veth peer name mgmt0 netns " + r.netns);
  must("ip addr add " + to_text(net + 1) + "/30 dev " + r.root_side);
  must("ip link set " + r.root_side + " up");
  must("ip -n " + r.netns + " addr add " + r.address + "/30 dev mgmt0");
  must("ip -n " + r.netns + " link set mgmt0 up");
  must("ip -n " + r.netns + " link set lo up");
  // The management link is not a cable between hosts: no IPv6 on it, so neighbour discovery
  // across it sees nothing.
  must("ip netns exec " + r.netns + " sysctl -q -w net.ipv6.conf.mgmt0.disable_ipv6=1");
  r.host_key = dir_ + "/host_" + name;
  must("ssh-keygen -q -t ed25519 -N '' -C meshplan-test -f " + sh_quoted(r.host_key));
  return r;
}

void NetnsFarm::route_management() {
  for (size_t i = 0; i < hosts_.size(); ++i) {
    const NetnsHost& h = hosts_[i];
    std::string gateway = to_text(base_ + static_cast<uint32_t>(4 * (i + 1)) + 1);
    must("sysctl -q -w net.ipv4.conf." + h.root_side + ".forwarding=1");
    must("ip -n " + h.netns + " route add " + range_ + " via " + gateway);
  }
}

void NetnsFarm::add_cable(const std::string& host_a, const std::string& if_a,
                          const std::string& host_b, const std::string& if_b) {
  const NetnsHost& a = host(host_a);
  const NetnsHost& b = host(host_b);
  must("ip link add " + if_a + " netns " + a.netns + " type veth peer name " + if_b + " netns " +
       b.netns);
  must("ip -n " + a.netns + " link set " + if_a + " up");
  must("ip -n " + b.netns + " link set " + if_b + " up");
}

void NetnsFarm::start() {
  for (auto& h : hosts_) {
    if (h.pid > 0) continue;
    std::string cfg = dir_ + "/sshd_config-" + h.name;
    std::ofstream out(cfg);
    out << "Port 22\nListenAddress " << h.address << "\nHostKey " << h.host_key
        << "\nPidFile none\nAuthorizedKeysFile " << dir_ << "/authorized_keys\n"
        << "PasswordAuthentication no\nKbdInteractiveAuthentication no\nPubkeyAuthentication yes\n"
        << "PermitRootLogin prohibit-password\nUsePAM no\nStrictModes no\nMaxStartups 100\n"
        << "SetEnv HOME=" << home() << (h.session_env.empty() ? "" : " ") << h.session_env << "\n";
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
      // `ip netns exec` enters the namespace and execs sshd: the PID is sshd's own.
      execlp("ip", "ip", "netns", "exec", h.netns.c_str(), kSshd, "-D", "-e", "-r", "-f",
             cfg.c_str(), static_cast<char*>(nullptr));
      _exit(127);
    }
    h.pid = pid;
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    bool up = false;
    while (!up && std::chrono::steady_clock::now() < deadline) {
      if (waitpid(pid, nullptr, WNOHANG) == pid) {
        h.pid = -1;
        break;
      }
      up = accepts(h.address, 22);
      if (!up) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    if (!up)
      throw std::runtime_error("sshd in " + h.netns + " did not start; log:\n" + read_text(log));
  }
  // Link-local addresses stay "tentative" for about a second after a link comes up.
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  for (const auto& h : hosts_) {
    while (!capture("ip -n " + h.netns + " -6 addr show tentative").first.empty() &&
           std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

void NetnsFarm::stop() {
  for (auto& h : hosts_) {
    if (h.pid > 0) {
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
  // Deleting a namespace destroys its veths, and with them their peers in the root namespace
  // and in the other namespaces.
  for (auto& h : hosts_) {
    if (h.netns.empty()) continue;
    capture("ip netns del " + h.netns + " 2>/dev/null");
    capture("ip link del " + h.root_side + " 2>/dev/null");
    h.netns.clear();
  }
}

void NetnsFarm::restart_sshd(const std::string& name) {
  NetnsHost& h = host(name);
  if (h.pid > 0) {
    if (waitpid(h.pid, nullptr, WNOHANG) == 0) {
      kill(h.pid, SIGKILL);
      waitpid(h.pid, nullptr, 0);
    }
    h.pid = -1;
  }
  start();
}

std::string NetnsFarm::gateway(const std::string& name) const {
  for (size_t i = 0; i < hosts_.size(); ++i)
    if (hosts_[i].name == name) return to_text(base_ + static_cast<uint32_t>(4 * (i + 1)) + 1);
  throw std::runtime_error("no farm host " + name);
}

std::string NetnsFarm::exec(const std::string& host_name, const std::string& command) const {
  for (const auto& h : hosts_) {
    if (h.name != host_name) continue;
    auto [out, rc] = capture("ip netns exec " + h.netns + " sh -c " + sh_quoted(command));
    if (rc != 0)
      throw std::runtime_error("in " + host_name + ": `" + command + "` exited " +
                               std::to_string(rc));
    return out;
  }
  throw std::runtime_error("no farm host " + host_name);
}

int NetnsFarm::exec_status(const std::string& host_name, const std::string& command) const {
  for (const auto& h : hosts_) {
    if (h.name == host_name)
      return capture("ip netns exec " + h.netns + " sh -c " + sh_quoted(command) +
                     " >/dev/null 2>&1")
          .second;
  }
  throw std::runtime_error("no farm host " + host_name);
}

NetnsHost& NetnsFarm::host(const std::string& name) {
  for (auto& h : hosts_) {
    if (h.name == name) return h;
  }
  throw std::runtime_error("no farm host " + name);
}

std::string NetnsFarm::write_ssh_config() const {
  std::string path = dir_ + "/ssh_config";
  std::ofstream out(path);
  for (const auto& h : hosts_)
    out << "Host " << h.name << "\n  HostName " << h.address << "\n  Port 22\n  User root\n"
        << "  IdentityFile " << client_key_ << "\n";
  return path;
}

std::string NetnsFarm::write_known_hosts() const {
  std::string path = dir_ + "/known_hosts";
  std::ofstream out(path);
  for (const auto& h : hosts_)
    out << h.address << " " << SshdFarm::public_key(h.host_key) << "\n";
  return path;
}

}  // namespace meshplan::testing
