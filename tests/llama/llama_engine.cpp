#include "tests/llama/llama_engine.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "tests/netns/netns_farm.hpp"
#include "tests/test_support.hpp"

namespace meshplan::testing {

std::string llama_chroot() {
  const char* env = std::getenv("MESHPLAN_LLAMA_CHROOT");
  return env && *env ? env : "/var/tmp/meshplan-sid";
}

std::string llama_unavailable_reason() {
  std::string farm = NetnsFarm::unavailable_reason();
  if (!farm.empty()) return farm;
  if (!std::filesystem::exists(llama_chroot() + "/.meshplan-ready"))
    return "no llama.cpp chroot at " + llama_chroot() +
           ": run tests/llama/sid_chroot.sh prepare (CI does)";
  return "";
}

void write_tiny_llama(const std::string& folder, int layers) {
  const std::string root = llama_chroot();
  std::filesystem::create_directories(root + folder);
  std::filesystem::copy_file(source_path("tests/llama/tiny_llama.py"), root + folder + ".py",
                             std::filesystem::copy_options::overwrite_existing);
  RunResult r = run_binary("/usr/sbin/chroot",
                           {root, "python3", folder + ".py", folder, std::to_string(layers)});
  std::filesystem::remove(root + folder + ".py");
  if (r.exit_code != 0) throw std::runtime_error("tiny_llama.py failed: " + r.out + r.err);
}

EngineProcesses::~EngineProcesses() {
  stop_all();
}

std::string EngineProcesses::start(const std::string& netns, const std::string& cwd,
                                   const std::vector<std::string>& words,
                                   const std::string& log_dir) {
  std::string log = log_dir + "/" + std::to_string(started_.size()) + "-" +
                    std::filesystem::path(words.at(0)).filename().string() + ".log";
  std::vector<std::string> argv;
  if (!netns.empty()) argv = {"ip", "netns", "exec", netns};
  argv.push_back("chroot");
  argv.insert(argv.end(), {llama_chroot(), "/bin/sh", "-c", "cd \"$0\" && exec \"$@\"", cwd});
  argv.insert(argv.end(), words.begin(), words.end());
  pid_t pid = ::fork();
  if (pid == 0) {
    int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
      ::dup2(fd, 1);
      ::dup2(fd, 2);
    }
    int null = ::open("/dev/null", O_RDONLY);
    if (null >= 0) ::dup2(null, 0);
    std::vector<char*> args;
    for (auto& a : argv)
      args.push_back(a.data());
    args.push_back(nullptr);
    ::execvp(args[0], args.data());
    ::_exit(127);
  }
  if (pid < 0) throw std::runtime_error("fork failed");
  started_.push_back({pid, log});
  return log;
}

bool EngineProcesses::running(const std::string& log) const {
  for (const auto& s : started_)
    if (s.log == log) return s.pid > 0 && ::waitpid(s.pid, nullptr, WNOHANG) == 0;
  return false;
}

void EngineProcesses::stop_all() {
  for (auto& s : started_) {
    if (s.pid <= 0) continue;
    ::kill(s.pid, SIGTERM);
    int status = 0;
    bool gone = false;
    for (int i = 0; i < 50 && !gone; ++i) {
      gone = ::waitpid(s.pid, &status, WNOHANG) != 0;
      if (!gone) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    if (!gone) {
      ::kill(s.pid, SIGKILL);
      ::waitpid(s.pid, &status, 0);
    }
    s.pid = -1;
  }
  started_.clear();
}

LlamaPlacement parse_llama_log(const std::string& log) {
  static const std::regex device(R"(using device (\S+) \(([0-9.]+:[0-9]+)\))");
  static const std::regex layer(R"(layer +([0-9]+) assigned to device (\S+?),)");
  LlamaPlacement out;
  std::istringstream in(log);
  std::smatch m;
  for (std::string line; std::getline(in, line);) {
    if (std::regex_search(line, m, device)) out.endpoints[m[1]] = m[2];
    if (std::regex_search(line, m, layer)) out.layer_device[std::stoi(m[1])] = m[2];
  }
  return out;
}

namespace {

bool wait_for(int fd, short events, std::chrono::steady_clock::time_point deadline) {
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
      deadline - std::chrono::steady_clock::now());
  if (left.count() <= 0) return false;
  pollfd p{fd, events, 0};
  return ::poll(&p, 1, static_cast<int>(left.count())) == 1;
}

}  // namespace

HttpAnswer http_request(const std::string& address, int port, const std::string& method,
                        const std::string& path, const std::string& body, int timeout_ms) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  HttpAnswer answer;
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  if (fd < 0 || ::inet_pton(AF_INET, address.c_str(), &a.sin_addr) != 1) {
    if (fd >= 0) ::close(fd);
    return answer;
  }
  int rc = ::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  int err = 0;
  socklen_t len = sizeof err;
  if ((rc != 0 && errno != EINPROGRESS) ||
      (rc != 0 && (!wait_for(fd, POLLOUT, deadline) ||
                   ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0 || err != 0))) {
    ::close(fd);
    return answer;
  }
  std::string req =
      method + " " + path + " HTTP/1.0\r\nHost: " + address +
      "\r\nContent-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) +
      "\r\n\r\n" + body;
  for (size_t sent = 0; sent < req.size();) {
    if (!wait_for(fd, POLLOUT, deadline)) break;
    ssize_t n = ::send(fd, req.data() + sent, req.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) break;
    sent += static_cast<size_t>(n);
  }
  std::string raw;
  char buf[8192];
  while (wait_for(fd, POLLIN, deadline)) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n <= 0) break;
    raw.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  size_t head_end = raw.find("\r\n\r\n");
  if (raw.rfind("HTTP/", 0) != 0 || head_end == std::string::npos) return answer;
  answer.code = std::atoi(raw.c_str() + raw.find(' ') + 1);
  answer.body = raw.substr(head_end + 4);
  return answer;
}

}  // namespace meshplan::testing
