// The HTTP/1.1 that a streamed completion needs, as pure functions over bytes: the endpoint's
// URL, the POST as sent, the answer's status line and headers, and its body decoded from
// Content-Length, chunked transfer-encoding or read to the close. The socket client
// (http_client.*) and the tests share them.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "lib/core/error.hpp"

namespace meshplan {

// What an endpoint that cannot be measured throws: refused, timed out, an error status or an
// answer that is not what the API promises. Exit code 3, as for a host that cannot be reached.
template <typename... Args>
Error endpoint_failure(fmt::format_string<Args...> f, Args&&... args) {
  return Error(ErrorKind::kHostsFailed, fmt::format(f, std::forward<Args>(args)...));
}

// What a peer sent, for messages: at most `limit` characters, control characters as '?'.
std::string shown_text(std::string_view text, size_t limit = 80);

// http://HOST[:PORT][/PREFIX]: an IPv4 address, a name or [IPv6]; the port 80 when left out.
struct HttpUrl {
  std::string host;
  int port = 80;
  std::string prefix;  // "" or "/proxy", without a trailing slash; "/v1" is the API's own
  // "http://HOST:PORT" (an IPv6 host in brackets), as messages and the cluster file name it.
  std::string origin() const;
};

// Input error naming the form expected for anything else (https, no host, a bad port).
HttpUrl parse_http_url(const std::string& text);
// The request path of an API path ("/v1/completions") under the URL's prefix.
std::string request_path(const HttpUrl& url, std::string_view api_path);
// A POST of a JSON body, one request per connection (Connection: close).
std::string format_post(const HttpUrl& url, std::string_view path, std::string_view body);

struct HttpHead {
  int status = 0;
  std::string reason;
  std::map<std::string, std::string> headers;  // names in lower case
  const std::string* header(std::string_view lower_name) const;
};

// The status line and headers, without the blank line that ends them.
HttpHead parse_http_head(std::string_view text, const std::string& origin);

// The body as the head says it comes: Content-Length bytes, chunks, or everything to the close.
class BodyDecoder {
 public:
  BodyDecoder(const HttpHead& head, std::string origin);
  // The body bytes among `bytes` (any split of the stream); throws on a malformed chunk.
  std::string feed(std::string_view bytes);
  // The whole body has arrived (never before the close when it is read to the close).
  bool done() const { return done_; }
  // The connection closed: an end the framing did not promise is a failure.
  void closed();

 private:
  enum class Mode { kLength, kChunked, kToClose };
  enum class ChunkState { kSize, kData, kDataEnd, kTrailer };
  std::string feed_chunked(std::string_view bytes);
  Mode mode_ = Mode::kToClose;
  ChunkState state_ = ChunkState::kSize;
  uint64_t left_ = 0;  // bytes of the body (kLength) or of the chunk (kData) still to come
  std::string line_;   // a chunk-size or trailer line so far
  bool done_ = false;
  std::string origin_;
};

}  // namespace meshplan
