#include "deploy/configure/tcp_check.hpp"

#include <arpa/inet.h>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "tests/fake_mac.hpp"
#include "tests/test_support.hpp"

namespace meshplan::tcp_check_test {
namespace {

// A TCP socket on 127.0.0.1, listening when asked; port 0 picks a free port.
struct Socket {
  int fd = -1;
  int port = 0;
  explicit Socket(int want_port, bool listen_too) {
    fd = socket(AF_INET, SOCK_STREAM, 0);
    int one = 1;  // as MLX's ring does: a port in TIME_WAIT is free
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<uint16_t>(want_port));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) return;
    socklen_t n = sizeof a;
    getsockname(fd, reinterpret_cast<sockaddr*>(&a), &n);
    port = ntohs(a.sin_port);
    if (listen_too) listen(fd, 4);
  }
  ~Socket() { close(fd); }
};

std::vector<HostTarget> hosts_a_and_b() {
  return {HostTarget{std::string("a"), "", "", 0}, HostTarget{std::string("b"), "", "", 0}};
}

int free_port() {
  return Socket(0, false).port;
}

TEST(tcp_check_test, opens_each_planned_connection_and_stops_its_listeners) {
  int p1 = free_port(), p2 = free_port();
  ASSERT_GT(p1, 0);
  std::vector<TcpProbe> probes{{"a", "b", "127.0.0.1", p1}, {"b", "a", "127.0.0.1", p2}};
  testing::LocalShellExecutor ex(testing::temp_dir());
  TcpCheckResult r = run_tcp_check(probes, hosts_a_and_b(), ex, 4, 3);
  EXPECT_TRUE(r.findings.empty()) << r.findings[0].problem;
  EXPECT_TRUE(r.failures.empty());
  EXPECT_EQ(r.tried, 2u);
  EXPECT_EQ(r.opened, 2u);
  // The listeners were stopped by their PIDs: both ports are free again (a signal is delivered
  // soon, not at once).
  for (int port : {p1, p2}) {
    bool free = false;
    for (int i = 0; i < 50 && !free; ++i) {
      free = Socket(port, true).port == port;
      if (!free) usleep(20000);
    }
    EXPECT_TRUE(free) << "the listener on " << port << " is still running";
  }
}

TEST(tcp_check_test, a_port_another_process_holds_is_named_with_how_to_find_it) {
  Socket holder(0, true);
  int free = free_port();
  std::vector<TcpProbe> probes{{"a", "b", "127.0.0.1", holder.port}, {"a", "b", "127.0.0.1", free}};
  testing::LocalShellExecutor ex(testing::temp_dir());
  TcpCheckResult r = run_tcp_check(probes, hosts_a_and_b(), ex, 4, 3);
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(r.findings[0].host, "a");
  EXPECT_EQ(r.findings[0].problem,
            fmt::format("cannot listen on 127.0.0.1:{} (Address already in use); a launch's rank "
                        "needs it",
                        holder.port));
  EXPECT_NE(r.findings[0].fix.find(fmt::format("lsof -nP -iTCP:{} -sTCP:LISTEN", holder.port)),
            std::string::npos);
  EXPECT_EQ(r.tried, 1u) << "the held port is not tried; the free one is";
  EXPECT_EQ(r.opened, 1u);
}

TEST(tcp_check_test, a_refused_connection_is_a_finding_on_the_connecting_host) {
  // The connector's script as the real one, against a port nothing listens on.
  int port = free_port();
  TcpProbe p{"a", "b", "127.0.0.1", port};
  testing::LocalShellExecutor ex(testing::temp_dir());
  ExecResult e = ex.run(hosts_a_and_b()[1], "/bin/sh -s", tcp_connect_script({&p}, 2));
  TcpLines lines = parse_tcp_lines(e.out);
  ASSERT_EQ(lines.results.size(), 1u) << e.out << e.err;
  EXPECT_EQ(lines.results[0].first, 0u);
  EXPECT_EQ(lines.results[0].second, "Connection refused");
}

TEST(tcp_check_test, times_round_trips_on_a_port_the_listener_picks) {
  // calibrate's probes: port 0, the listener takes a free one and echoes; the connector times
  // requests one at a time. On loopback a round trip between two processes takes microseconds.
  TcpProbe p{"a", "b", "127.0.0.1", 0};
  p.round_trips = 50;
  std::vector<TcpProbe> probes{p, {"a", "b", "127.0.0.1", free_port()}};
  testing::LocalShellExecutor ex(testing::temp_dir());
  TcpCheckResult r = run_tcp_check(probes, hosts_a_and_b(), ex, 4, 3);
  EXPECT_TRUE(r.findings.empty()) << r.findings[0].problem;
  EXPECT_EQ(r.opened, 2u);
  ASSERT_EQ(r.round_trip_us.count(0), 1u);
  EXPECT_GT(r.round_trip_us[0], 1.0);
  EXPECT_LT(r.round_trip_us[0], 50000.0);
  EXPECT_EQ(r.round_trip_us.count(1), 0u) << "a plain probe only opens its connection";
}

TEST(tcp_check_test, an_address_the_host_does_not_hold_is_named_without_a_port) {
  TcpProbe p{"a", "b", "192.0.2.77", 0};
  p.round_trips = 10;
  testing::LocalShellExecutor ex(testing::temp_dir());
  TcpCheckResult r = run_tcp_check({p}, hosts_a_and_b(), ex, 4, 3);
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(r.findings[0].problem.substr(0, 45), "cannot listen on 192.0.2.77 (Cannot assign re");
  EXPECT_TRUE(r.round_trip_us.empty());
  EXPECT_EQ(r.tried, 0u);
}

TEST(tcp_check_test, parses_the_script_lines_and_ignores_what_is_not_one) {
  TcpLines l = parse_tcp_lines(
      "@@bound 10.0.0.2 32324\n@@busy 10.0.0.2 32325 Address already in use\n@@pid 4242\n"
      "@@tcp 0 ok\n@@tcp 1 fail Permission denied\n@@tcp x ok\n@@bound 10.0.0.2 99999\n"
      "@@pid -3\nnoise\n@@tcp 2 fail\n@@bound 10.0.0.3 0 40123\n@@bound 10.0.0.3 0\n"
      "@@bound 10.0.0.3 0 x\n@@tcp 3 ok 53.5\n@@tcp 4 ok -1\n@@tcp 5 ok 1e9\n");
  ASSERT_EQ(l.bound.size(), 2u);
  EXPECT_EQ(l.bound[0], (TcpBound{"10.0.0.2", 32324, 32324}));
  EXPECT_EQ(l.bound[1], (TcpBound{"10.0.0.3", 0, 40123})) << "port 0: the port it took";
  ASSERT_EQ(l.round_trips_us.size(), 1u) << "only a positive, sane round trip";
  EXPECT_EQ(l.round_trips_us[0], (std::pair<size_t, double>{3, 53.5}));
  ASSERT_EQ(l.busy.size(), 1u);
  EXPECT_EQ(l.busy[0].second, "Address already in use");
  EXPECT_EQ(l.pids, (std::vector<long>{4242}));
  ASSERT_EQ(l.results.size(), 6u);
  EXPECT_EQ(l.results[0].second, "");
  EXPECT_EQ(l.results[1].second, "Permission denied");
  EXPECT_EQ(l.results[2].second, "failed");
  EXPECT_TRUE(parse_tcp_lines("@@nopython\n").no_python);
}

}  // namespace
}  // namespace meshplan::tcp_check_test
