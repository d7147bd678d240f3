#include "deploy/measure/http_wire.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>

namespace meshplan {
namespace {

// A chunk-size or trailer line longer than this is not HTTP.
constexpr size_t kMaxLineBytes = 8192;

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

}  // namespace

std::string shown_text(std::string_view text, size_t limit) {
  std::string out;
  for (char c : text.substr(0, limit))
    out += (static_cast<unsigned char>(c) < 0x20) ? '?' : c;
  return out + (text.size() > limit ? "..." : "");
}

std::string HttpUrl::origin() const {
  const bool v6 = host.find(':') != std::string::npos;
  return fmt::format("http://{}{}{}:{}", v6 ? "[" : "", host, v6 ? "]" : "", port);
}

HttpUrl parse_http_url(const std::string& text) {
  constexpr const char* kForm = "expected http://HOST:PORT, for example http://10.0.0.1:8080";
  const std::string_view scheme = "http://";
  if (text.rfind("https://", 0) == 0)
    throw input_error("--url {}: https is not spoken here; {} (the server's plain HTTP port)", text,
                      kForm);
  if (text.rfind(scheme, 0) != 0) throw input_error("--url {}: {}", text, kForm);
  std::string_view rest = std::string_view(text).substr(scheme.size());
  const size_t slash = rest.find('/');
  std::string_view authority = rest.substr(0, slash);
  std::string prefix = slash == std::string_view::npos ? "" : std::string(rest.substr(slash));
  while (!prefix.empty() && prefix.back() == '/')
    prefix.pop_back();
  if (prefix.size() >= 3 && prefix.substr(prefix.size() - 3) == "/v1")
    prefix.resize(prefix.size() - 3);
  if (prefix.find_first_of("?# ") != std::string::npos)
    throw input_error("--url {}: {} (a path prefix at most, no query)", text, kForm);
  HttpUrl url;
  std::string_view port;
  if (!authority.empty() && authority.front() == '[') {
    const size_t close = authority.find(']');
    if (close == std::string_view::npos) throw input_error("--url {}: {}", text, kForm);
    url.host = std::string(authority.substr(1, close - 1));
    std::string_view after = authority.substr(close + 1);
    if (!after.empty() && after.front() != ':') throw input_error("--url {}: {}", text, kForm);
    if (!after.empty()) port = after.substr(1);
  } else {
    const size_t colon = authority.rfind(':');
    url.host = std::string(authority.substr(0, colon));
    if (colon != std::string_view::npos) port = authority.substr(colon + 1);
  }
  const bool bracketed = !authority.empty() && authority.front() == '[';
  if (url.host.empty() || url.host.find_first_of(bracketed ? "@ /" : "@: /") != std::string::npos)
    throw input_error("--url {}: {}", text, kForm);
  if (!port.empty() || authority.find(':') != std::string_view::npos) {
    int p = 0;
    auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), p);
    if (ec != std::errc() || end != port.data() + port.size() || p < 1 || p > 65535)
      throw input_error("--url {}: the port \"{}\" is not 1-65535; {}", text, port, kForm);
    url.port = p;
  }
  url.prefix = prefix;
  return url;
}

std::string request_path(const HttpUrl& url, std::string_view api_path) {
  return url.prefix + std::string(api_path);
}

std::string format_post(const HttpUrl& url, std::string_view path, std::string_view body) {
  const bool v6 = url.host.find(':') != std::string::npos;
  return fmt::format(
      "POST {} HTTP/1.1\r\nHost: {}{}{}:{}\r\nContent-Type: application/json\r\n"
      "Accept: text/event-stream\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{}",
      path, v6 ? "[" : "", url.host, v6 ? "]" : "", url.port, body.size(), body);
}

const std::string* HttpHead::header(std::string_view lower_name) const {
  auto it = headers.find(std::string(lower_name));
  return it == headers.end() ? nullptr : &it->second;
}

HttpHead parse_http_head(std::string_view text, const std::string& origin) {
  HttpHead head;
  size_t eol = text.find("\r\n");
  std::string_view status_line = text.substr(0, eol);
  // "HTTP/1.1 200 OK"; HTTP/1.0 answers too (the body then runs to the close).
  if (status_line.size() < 12 || status_line.substr(0, 7) != "HTTP/1." || status_line[8] != ' ')
    throw endpoint_failure("{}: expected an HTTP/1.1 status line (\"HTTP/1.1 200 OK\"), got \"{}\"",
                           origin, shown_text(status_line));
  std::string_view code = status_line.substr(9, 3);
  auto [end, ec] = std::from_chars(code.data(), code.data() + 3, head.status);
  if (ec != std::errc() || end != code.data() + 3 || head.status < 100)
    throw endpoint_failure("{}: expected a three-digit status in \"{}\"", origin,
                           shown_text(status_line));
  head.reason = std::string(trim(status_line.substr(std::min<size_t>(12, status_line.size()))));
  while (eol != std::string_view::npos) {
    const size_t start = eol + 2;
    eol = text.find("\r\n", start);
    std::string_view line =
        text.substr(start, eol == std::string_view::npos ? text.npos : eol - start);
    if (line.empty()) continue;
    const size_t colon = line.find(':');
    if (colon == std::string_view::npos || colon == 0)
      throw endpoint_failure("{}: expected a header line \"Name: value\", got \"{}\"", origin,
                             shown_text(line));
    head.headers[lower(trim(line.substr(0, colon)))] = std::string(trim(line.substr(colon + 1)));
  }
  return head;
}

BodyDecoder::BodyDecoder(const HttpHead& head, std::string origin) : origin_(std::move(origin)) {
  const std::string* te = head.header("transfer-encoding");
  const std::string* length = head.header("content-length");
  if (te && lower(*te).find("chunked") != std::string::npos) {
    mode_ = Mode::kChunked;
  } else if (length) {
    mode_ = Mode::kLength;
    auto [end, ec] = std::from_chars(length->data(), length->data() + length->size(), left_);
    if (ec != std::errc() || end != length->data() + length->size())
      throw endpoint_failure("{}: expected a number of bytes in Content-Length, got \"{}\"",
                             origin_, shown_text(*length));
    done_ = left_ == 0;
  }
  // No body at all: 204 and 304.
  if (head.status == 204 || head.status == 304) done_ = true;
}

std::string BodyDecoder::feed(std::string_view bytes) {
  if (done_) return "";
  if (mode_ == Mode::kToClose) return std::string(bytes);
  if (mode_ == Mode::kLength) {
    const size_t take = static_cast<size_t>(std::min<uint64_t>(left_, bytes.size()));
    left_ -= take;
    done_ = left_ == 0;
    return std::string(bytes.substr(0, take));
  }
  return feed_chunked(bytes);
}

// Chunks: "SIZE[;ext]\r\n" DATA "\r\n", ending with size 0, trailers and a blank line.
std::string BodyDecoder::feed_chunked(std::string_view bytes) {
  std::string out;
  while (!bytes.empty() && !done_) {
    if (state_ == ChunkState::kData) {
      const size_t take = static_cast<size_t>(std::min<uint64_t>(left_, bytes.size()));
      out.append(bytes.substr(0, take));
      bytes.remove_prefix(take);
      left_ -= take;
      if (left_ == 0) state_ = ChunkState::kDataEnd;
      continue;
    }
    const char c = bytes.front();
    bytes.remove_prefix(1);
    if (c != '\n') {
      line_ += c;
      if (line_.size() > kMaxLineBytes)
        throw endpoint_failure("{}: a chunk-size line longer than {} bytes", origin_,
                               kMaxLineBytes);
      continue;
    }
    std::string_view line = trim(line_);
    if (state_ == ChunkState::kDataEnd) {
      if (!line.empty())
        throw endpoint_failure("{}: expected CRLF after a chunk's data, got \"{}\"", origin_,
                               shown_text(line));
      state_ = ChunkState::kSize;
    } else if (state_ == ChunkState::kSize) {
      std::string_view size = trim(line.substr(0, line.find(';')));
      uint64_t n = 0;
      auto [end, ec] = std::from_chars(size.data(), size.data() + size.size(), n, 16);
      if (size.empty() || ec != std::errc() || end != size.data() + size.size())
        throw endpoint_failure("{}: expected a chunk size in hexadecimal, got \"{}\"", origin_,
                               shown_text(line));
      left_ = n;
      state_ = n == 0 ? ChunkState::kTrailer : ChunkState::kData;
    } else if (line.empty()) {  // kTrailer: the blank line ends the body
      done_ = true;
    }
    line_.clear();
  }
  return out;
}

void BodyDecoder::closed() {
  if (done_) return;
  if (mode_ == Mode::kToClose) {
    done_ = true;
    return;
  }
  // A last chunk of size 0 without the final blank line still ends the body.
  if (mode_ == Mode::kChunked && state_ == ChunkState::kTrailer) {
    done_ = true;
    return;
  }
  throw endpoint_failure("{}: the connection closed before the end of the answer ({})", origin_,
                         mode_ == Mode::kLength
                             ? fmt::format("{} bytes of its Content-Length missing", left_)
                             : std::string("inside chunked transfer-encoding"));
}

}  // namespace meshplan
