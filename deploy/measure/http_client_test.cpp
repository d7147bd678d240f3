#include "deploy/measure/http_client.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <thread>

#include "lib/core/clock.hpp"

namespace meshplan::http_client_test {
namespace {

// A listening socket on 127.0.0.1 and an ephemeral port.
struct Listener {
  int fd = -1;
  int port = 0;
  Listener() {
    fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
    EXPECT_EQ(::listen(fd, 8), 0);
    socklen_t len = sizeof a;
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
    port = ntohs(a.sin_port);
  }
  ~Listener() {
    if (fd >= 0) ::close(fd);
  }
  HttpUrl url() const { return parse_http_url("http://127.0.0.1:" + std::to_string(port)); }
};

std::string failure_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    EXPECT_EQ(exit_code(e.kind()), 3) << e.what();
    return e.what();
  }
  return "no error";
}

TEST(http_client_test, a_closed_port_is_refused_with_the_address) {
  int port;
  {
    Listener gone;
    port = gone.port;
  }
  SteadyClock clock;
  auto client = make_socket_http_client(clock);
  const HttpUrl url = parse_http_url("http://127.0.0.1:" + std::to_string(port));
  EXPECT_EQ(failure_of([&] { client->post(url, "/v1/completions", "{}", 5); }),
            fmt::format("http://127.0.0.1:{}: connection refused (is the server running and "
                        "listening on port {} of that address?)",
                        port, port));
}

TEST(http_client_test, a_server_that_never_answers_times_out) {
  Listener silent;  // the kernel accepts the connection; nobody answers
  SteadyClock clock;
  auto client = make_socket_http_client(clock);
  const double began = clock.now_seconds();
  std::string e = failure_of([&] { client->post(silent.url(), "/v1/completions", "{}", 0.3); });
  EXPECT_NE(e.find("timed out after 0.3 s waiting for the answer's status line (--timeout-s)"),
            std::string::npos)
      << e;
  EXPECT_LT(clock.now_seconds() - began, 5);
}

TEST(http_client_test, posts_and_reads_a_chunked_answer_as_it_comes) {
  Listener server;
  std::string received;
  std::thread answer([&] {
    int c = ::accept(server.fd, nullptr, nullptr);
    char buffer[4096];
    while (received.find("\r\n\r\n{\"a\":1}") == std::string::npos) {
      ssize_t n = ::recv(c, buffer, sizeof buffer, 0);
      if (n <= 0) break;
      received.append(buffer, static_cast<size_t>(n));
    }
    std::string out =
        "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"
        "6\r\ndata: \r\n";
    ::send(c, out.data(), out.size(), MSG_NOSIGNAL);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    out = "3\r\nxy\n\r\n0\r\n\r\n";
    ::send(c, out.data(), out.size(), MSG_NOSIGNAL);
    ::close(c);
  });
  SteadyClock clock;
  auto client = make_socket_http_client(clock);
  auto response = client->post(server.url(), "/v1/completions", "{\"a\":1}", 10);
  EXPECT_EQ(response->head().status, 200);
  EXPECT_EQ(read_whole_body(*response), "data: xy\n");
  answer.join();
  EXPECT_EQ(received.rfind("POST /v1/completions HTTP/1.1\r\nHost: 127.0.0.1:", 0), 0u) << received;
  EXPECT_NE(received.find("Content-Length: 7\r\n"), std::string::npos);
}

}  // namespace
}  // namespace meshplan::http_client_test
