#include "deploy/measure/http_client.hpp"

#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstring>

#include "lib/core/clock.hpp"

namespace meshplan {
namespace {

// An answer's head larger than this is not an API server's.
constexpr size_t kMaxHeadBytes = 64 * 1024;

class Socket {
 public:
  explicit Socket(int fd) : fd_(fd) {}
  Socket(const Socket&) = delete;
  Socket& operator=(const Socket&) = delete;
  ~Socket() {
    if (fd_ >= 0) ::close(fd_);
  }
  int fd() const { return fd_; }

 private:
  int fd_;
};

// Waits for `events` on fd until the deadline; false when it passed.
bool wait_for(int fd, short events, const Clock& clock, double deadline_s) {
  for (;;) {
    const double left = deadline_s - clock.now_seconds();
    if (left <= 0) return false;
    pollfd p{fd, events, 0};
    const int ms = static_cast<int>(std::ceil(std::min(left, 3600.0) * 1000));
    const int r = ::poll(&p, 1, ms);
    if (r > 0) return true;
    if (r < 0 && errno != EINTR) throw endpoint_failure("poll failed: {}", std::strerror(errno));
  }
}

std::string connect_error(const HttpUrl& url, int err) {
  if (err == ECONNREFUSED)
    return fmt::format(
        "{}: connection refused (is the server running and listening on port {} of "
        "that address?)",
        url.origin(), url.port);
  if (err == EHOSTUNREACH || err == ENETUNREACH)
    return fmt::format("{}: no route to the host ({})", url.origin(), std::strerror(err));
  return fmt::format("{}: cannot connect: {}", url.origin(), std::strerror(err));
}

// A connected socket to the first of the host's addresses that accepts, within the deadline.
std::unique_ptr<Socket> connect_to(const HttpUrl& url, const Clock& clock, double deadline_s,
                                   double timeout_s) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  const std::string port = std::to_string(url.port);
  if (int rc = ::getaddrinfo(url.host.c_str(), port.c_str(), &hints, &found); rc != 0)
    throw endpoint_failure("{}: cannot resolve the host \"{}\": {}", url.origin(), url.host,
                           ::gai_strerror(rc));
  std::unique_ptr<addrinfo, void (*)(addrinfo*)> list(found, ::freeaddrinfo);
  int last_error = ECONNREFUSED;
  for (addrinfo* a = found; a; a = a->ai_next) {
    auto s = std::make_unique<Socket>(
        ::socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol));
    if (s->fd() < 0) {
      last_error = errno;
      continue;
    }
    if (::connect(s->fd(), a->ai_addr, a->ai_addrlen) == 0) return s;
    if (errno != EINPROGRESS) {
      last_error = errno;
      continue;
    }
    if (!wait_for(s->fd(), POLLOUT, clock, deadline_s))
      throw endpoint_failure("{}: no connection within {:g} s (--timeout-s)", url.origin(),
                             timeout_s);
    int err = 0;
    socklen_t len = sizeof err;
    ::getsockopt(s->fd(), SOL_SOCKET, SO_ERROR, &err, &len);
    if (err == 0) return s;
    last_error = err;
  }
  throw endpoint_failure("{}", connect_error(url, last_error));
}

class SocketResponse : public HttpResponse {
 public:
  SocketResponse(std::unique_ptr<Socket> socket, const Clock& clock, double deadline_s,
                 double timeout_s, std::string origin)
      : socket_(std::move(socket)),
        clock_(clock),
        deadline_s_(deadline_s),
        timeout_s_(timeout_s),
        origin_(std::move(origin)) {}

  // Reads up to the blank line after the headers; what follows is the body's first bytes.
  void read_head() {
    std::string buffer;
    size_t end;
    while ((end = buffer.find("\r\n\r\n")) == std::string::npos) {
      if (buffer.size() > kMaxHeadBytes)
        throw endpoint_failure("{}: an answer's head longer than {} bytes", origin_, kMaxHeadBytes);
      std::optional<std::string> more = receive("the answer's status line");
      if (!more)
        throw endpoint_failure("{}: the connection closed {} (expected an HTTP/1.1 status line)",
                               origin_,
                               buffer.empty() ? "without an answer" : "inside the answer's head");
      buffer += *more;
    }
    head_ = parse_http_head(std::string_view(buffer).substr(0, end), origin_);
    decoder_.emplace(head_, origin_);
    pending_ = buffer.substr(end + 4);
  }

  const HttpHead& head() const override { return head_; }

  std::optional<std::string> read_some() override {
    if (decoder_->done()) return std::nullopt;
    if (!pending_.empty()) {
      std::string body = decoder_->feed(pending_);
      pending_.clear();
      return body;
    }
    std::optional<std::string> more = receive("the rest of the answer");
    if (!more) {
      decoder_->closed();
      return std::nullopt;
    }
    return decoder_->feed(*more);
  }

 private:
  // The next bytes from the socket, nullopt when the peer closed it.
  std::optional<std::string> receive(const char* awaited) {
    if (!wait_for(socket_->fd(), POLLIN, clock_, deadline_s_))
      throw endpoint_failure("{}: timed out after {:g} s waiting for {} (--timeout-s)", origin_,
                             timeout_s_, awaited);
    char buffer[16384];
    for (;;) {
      const ssize_t n = ::recv(socket_->fd(), buffer, sizeof buffer, 0);
      if (n > 0) return std::string(buffer, static_cast<size_t>(n));
      if (n == 0) return std::nullopt;
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) return std::string();
      if (errno == ECONNRESET) return std::nullopt;
      throw endpoint_failure("{}: reading the answer failed: {}", origin_, std::strerror(errno));
    }
  }

  std::unique_ptr<Socket> socket_;
  const Clock& clock_;
  double deadline_s_;
  double timeout_s_;
  std::string origin_;
  HttpHead head_;
  std::optional<BodyDecoder> decoder_;
  std::string pending_;
};

class SocketHttpClient : public HttpClient {
 public:
  explicit SocketHttpClient(const Clock& clock) : clock_(clock) {}

  std::unique_ptr<HttpResponse> post(const HttpUrl& url, const std::string& path,
                                     const std::string& body, double timeout_s) override {
    const double deadline_s = clock_.now_seconds() + timeout_s;
    auto socket = connect_to(url, clock_, deadline_s, timeout_s);
    const std::string request = format_post(url, path, body);
    size_t sent = 0;
    while (sent < request.size()) {
      const ssize_t n =
          ::send(socket->fd(), request.data() + sent, request.size() - sent, MSG_NOSIGNAL);
      if (n > 0) {
        sent += static_cast<size_t>(n);
      } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
        if (!wait_for(socket->fd(), POLLOUT, clock_, deadline_s))
          throw endpoint_failure("{}: timed out after {:g} s sending the request (--timeout-s)",
                                 url.origin(), timeout_s);
      } else {
        throw endpoint_failure("{}: sending the request failed: {}", url.origin(),
                               std::strerror(errno));
      }
    }
    auto response = std::make_unique<SocketResponse>(std::move(socket), clock_, deadline_s,
                                                     timeout_s, url.origin());
    response->read_head();
    return response;
  }

 private:
  const Clock& clock_;
};

}  // namespace

std::string read_whole_body(HttpResponse& response, size_t limit) {
  std::string body;
  while (std::optional<std::string> more = response.read_some()) {
    body += *more;
    if (body.size() > limit) {
      body.resize(limit);
      break;
    }
  }
  return body;
}

std::unique_ptr<HttpClient> make_socket_http_client(const Clock& clock) {
  return std::make_unique<SocketHttpClient>(clock);
}

}  // namespace meshplan
