#include "deploy/measure/sse_parser.hpp"

#include "deploy/measure/http_wire.hpp"

namespace meshplan {
namespace {

// One event's line longer than this is not a token's chunk.
constexpr size_t kMaxEventLineBytes = 1 << 20;

}  // namespace

std::vector<std::string> SseParser::feed(std::string_view bytes) {
  std::vector<std::string> events;
  while (!bytes.empty()) {
    const size_t eol = bytes.find('\n');
    if (eol == std::string_view::npos) {
      partial_.append(bytes);
      if (partial_.size() > kMaxEventLineBytes)
        throw endpoint_failure("{}: a Server-Sent Events line longer than {} bytes", origin_,
                               kMaxEventLineBytes);
      break;
    }
    partial_.append(bytes.substr(0, eol));
    bytes.remove_prefix(eol + 1);
    if (!partial_.empty() && partial_.back() == '\r') partial_.pop_back();
    line(partial_, events);
    partial_.clear();
  }
  return events;
}

std::vector<std::string> SseParser::finish() {
  std::vector<std::string> events;
  if (!partial_.empty()) line(partial_, events);
  partial_.clear();
  line("", events);
  return events;
}

void SseParser::line(std::string_view text, std::vector<std::string>& events) {
  if (text.empty()) {  // the blank line ends an event
    if (has_data_) events.push_back(std::move(data_));
    data_.clear();
    has_data_ = false;
    return;
  }
  if (text.front() == ':') return;  // a comment (keep-alive)
  const size_t colon = text.find(':');
  const std::string_view field = text.substr(0, colon);
  std::string_view value = colon == std::string_view::npos ? "" : text.substr(colon + 1);
  if (!value.empty() && value.front() == ' ') value.remove_prefix(1);
  if (field == "data") {
    if (has_data_) data_ += '\n';
    data_.append(value);
    has_data_ = true;
  } else if (field == "error") {
    throw endpoint_failure("{}: the server ended the stream with an error: {}", origin_,
                           shown_text(value, 300));
  } else if (field != "event" && field != "id" && field != "retry") {
    throw endpoint_failure("{}: expected Server-Sent Events lines (\"data: {{...}}\"), got \"{}\"",
                           origin_, shown_text(text));
  }
}

}  // namespace meshplan
