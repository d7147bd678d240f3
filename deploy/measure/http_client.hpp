// An HTTP client for one streamed answer at a time, behind an interface: the socket client speaks
// HTTP/1.1 over POSIX sockets (one POST per connection), the fake (fake_http_client.hpp) answers
// from memory. Failures are endpoint_failure (http_wire.hpp): refused, timed out, broken.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "deploy/measure/http_wire.hpp"

namespace meshplan {

// An answer whose status and headers are in; its body is read as it arrives.
class HttpResponse {
 public:
  virtual ~HttpResponse() = default;
  virtual const HttpHead& head() const = 0;
  // The next body bytes (decoded, possibly empty while the framing alone arrived), or nullopt
  // once the body is complete. Throws endpoint_failure past the request's deadline.
  virtual std::optional<std::string> read_some() = 0;
};

class HttpClient {
 public:
  virtual ~HttpClient() = default;
  // POSTs `body` (JSON) to `path` and returns once the head is in. `timeout_s` bounds everything
  // from now, the body's reads included (on the clock the client was made with).
  virtual std::unique_ptr<HttpResponse> post(const HttpUrl& url, const std::string& path,
                                             const std::string& body, double timeout_s) = 0;
};

// The body of an answer, read to its end (error answers: the server's message is in it), at most
// `limit` bytes.
std::string read_whole_body(HttpResponse& response, size_t limit = 1 << 20);

class Clock;
// POSIX sockets; deadlines on `clock` (a steady clock in the product).
std::unique_ptr<HttpClient> make_socket_http_client(const Clock& clock);

}  // namespace meshplan
