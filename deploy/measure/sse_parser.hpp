// Server-Sent Events as OpenAI-compatible servers stream them: "data: {...}" lines, a blank line
// after each event, "data: [DONE]" at the end. Strict: a line that is no SSE field is a failure
// that names what was expected, and llama-server's "error: {...}" line is its error.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace meshplan {

class SseParser {
 public:
  explicit SseParser(std::string origin) : origin_(std::move(origin)) {}
  // The data of each event completed by `bytes` (any split of the stream), in order.
  std::vector<std::string> feed(std::string_view bytes);
  // The stream ended: an event without its blank line still counts.
  std::vector<std::string> finish();

 private:
  void line(std::string_view text, std::vector<std::string>& events);
  std::string origin_;
  std::string partial_;  // the current line so far
  std::string data_;     // the current event's data lines, joined by "\n"
  bool has_data_ = false;
};

}  // namespace meshplan
