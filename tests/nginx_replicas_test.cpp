// `emit nginx`'s config run by the real nginx: three stub HTTP servers stand in for a plan's
// three replicas (shares 0.5, 0.3, 0.2), the config is changed only in its addresses and ports,
// and the requests sent through nginx reach each stub in its share. Everything this test starts
// is stopped by PID.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <thread>

#include "tests/test_support.hpp"

namespace meshplan::testing::nginx_replicas_test {
namespace {

const char* kNginx = "/usr/sbin/nginx";

// A listening TCP socket on 127.0.0.1, port chosen by the kernel.
int listen_loopback(int& port) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  int one = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 ||
      ::listen(fd, 128) != 0)
    return -1;
  socklen_t len = sizeof a;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  port = ntohs(a.sin_port);
  return fd;
}

// A stub HTTP server in a child process: every request gets `name` as its body.
pid_t start_stub(const std::string& name, int& port) {
  int fd = listen_loopback(port);
  if (fd < 0) return -1;
  const std::string reply = "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: " +
                            std::to_string(name.size()) + "\r\nConnection: close\r\n\r\n" + name;
  pid_t pid = ::fork();
  if (pid == 0) {
    for (;;) {
      int c = ::accept(fd, nullptr, nullptr);
      if (c < 0) continue;
      // Read the request's head, then answer and close.
      std::string head;
      char buf[4096];
      while (head.find("\r\n\r\n") == std::string::npos) {
        ssize_t n = ::read(c, buf, sizeof buf);
        if (n <= 0) break;
        head.append(buf, static_cast<size_t>(n));
      }
      [[maybe_unused]] ssize_t w = ::write(c, reply.data(), reply.size());
      ::close(c);
    }
  }
  ::close(fd);
  return pid;
}

// One GET through `port`; the whole answer, "" when nothing answers.
std::string get(int port, const std::string& path) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  std::string out;
  if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0) {
    const std::string req = "GET " + path + " HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n";
    if (::write(fd, req.data(), req.size()) == static_cast<ssize_t>(req.size())) {
      char buf[4096];
      for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) > 0;)
        out.append(buf, static_cast<size_t>(n));
    }
  }
  ::close(fd);
  return out;
}

// Stops the processes the test started, by PID, however it ends.
struct Started {
  std::vector<pid_t> pids;
  ~Started() {
    for (pid_t p : pids)
      if (p > 0) {
        ::kill(p, SIGTERM);
        ::waitpid(p, nullptr, 0);
      }
  }
};

TEST(nginx_replicas_test, nginx_shares_the_requests_by_the_plans_weights) {
  if (!std::filesystem::exists(kNginx))
    GTEST_SKIP() << kNginx << " is missing: install nginx-light to run nginx over the replicas";
  RunResult r =
      run_meshplan({"emit", "nginx", "-c", source_path("tests/fixtures/launch/loopback.yaml"),
                    "--plan", source_path("tests/fixtures/launch/loopback_replicas_plan.json")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string conf = r.out;

  // The replicas' servers in the emitted config, in order, with their weights.
  const std::regex server_line(R"(server (\S+):(\d+) weight=(\d+);)");
  std::vector<std::string> addresses;
  std::vector<int> weights;
  for (std::sregex_iterator it(conf.begin(), conf.end(), server_line), end; it != end; ++it) {
    addresses.push_back((*it)[1].str() + ":" + (*it)[2].str());
    weights.push_back(std::stoi((*it)[3].str()));
  }
  // node-a, node-b, node-c on their loopback addresses; llama-server's port.
  ASSERT_EQ(addresses,
            (std::vector<std::string>{"127.0.0.1:8080", "127.0.0.2:8080", "127.0.0.3:8080"}))
      << conf;
  ASSERT_EQ(weights, (std::vector<int>{50, 30, 20})) << "the plan's shares 0.5 / 0.3 / 0.2";

  Started started;
  std::string rewritten = conf;
  std::vector<std::string> names;
  for (size_t i = 0; i < addresses.size(); ++i) {
    names.push_back("replica-" + std::to_string(i + 1));
    int port = 0;
    pid_t pid = start_stub(names.back(), port);
    ASSERT_GT(pid, 0);
    started.pids.push_back(pid);
    const std::string from = "server " + addresses[i] + " ";
    const size_t at = rewritten.find(from);
    ASSERT_NE(at, std::string::npos);
    rewritten.replace(at, from.size(), "server 127.0.0.1:" + std::to_string(port) + " ");
  }
  const int listen_port = free_loopback_port();
  const std::string listen = "listen 8100;";
  const size_t at = rewritten.find(listen);
  ASSERT_NE(at, std::string::npos) << conf;
  rewritten.replace(at, listen.size(), "listen 127.0.0.1:" + std::to_string(listen_port) + ";");

  const std::string dir = temp_dir();
  ::chmod(dir.c_str(), 0755);
  std::ofstream(dir + "/nginx.conf") << rewritten;
  // As the checklist says (nginx -p DIR -c nginx.conf), in the foreground so that its PID is ours.
  NginxProcess nginx(dir);
  std::string first;
  for (int i = 0; i < 100 && first.empty(); ++i) {
    first = get(listen_port, "/v1/models");
    if (first.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_NE(first.find("200 OK"), std::string::npos)
      << "nginx does not answer: " << read_text(dir + "/error.log");
  EXPECT_TRUE(std::filesystem::exists(dir + "/nginx.pid")) << "the pid file is under -p";

  const int requests = 600;
  std::map<std::string, int> seen;
  for (int i = 0; i < requests; ++i) {
    const std::string answer = get(listen_port, "/v1/models");
    std::string who = "(none)";
    for (const std::string& n : names)
      if (answer.size() >= n.size() && answer.compare(answer.size() - n.size(), n.size(), n) == 0)
        who = n;
    ++seen[who];
  }
  EXPECT_EQ(seen.count("(none)"), 0u) << "every request reaches a replica";
  const int total_weight = weights[0] + weights[1] + weights[2];
  for (size_t i = 0; i < names.size(); ++i) {
    const double got = static_cast<double>(seen[names[i]]) / requests;
    const double want = static_cast<double>(weights[i]) / total_weight;
    EXPECT_NEAR(got, want, 0.05) << names[i] << ": " << seen[names[i]] << " of " << requests;
  }
}

}  // namespace
}  // namespace meshplan::testing::nginx_replicas_test
