// An in-memory HttpClient for tests: every POST is recorded and answered with a scripted
// answer, its body in pieces; each piece read advances a fake clock (one request at a time) or
// sleeps (several at a time), and the most requests open at once is kept.
#pragma once

#include <functional>
#include <mutex>
#include <vector>

#include "deploy/measure/http_client.hpp"
#include "lib/core/clock.hpp"

namespace meshplan {

struct FakeAnswer {
  int status = 200;
  std::string content_type = "text/event-stream";
  std::vector<std::string> pieces;  // the body as it arrives
  // Each piece arrives this long after the previous one (the first after the head).
  double seconds_per_piece = 0;
  std::string refuse;  // not empty: post() throws endpoint_failure with this message
};

struct FakePost {
  std::string path;
  std::string body;
  double timeout_s = 0;
};

class FakeHttpClient : public HttpClient {
 public:
  // Answers come from `answer`; times move on `clock` when given, else each piece sleeps.
  FakeHttpClient(std::function<FakeAnswer(const FakePost&)> answer, FakeClock* clock)
      : answer_(std::move(answer)), clock_(clock) {}

  std::unique_ptr<HttpResponse> post(const HttpUrl& url, const std::string& path,
                                     const std::string& body, double timeout_s) override;

  std::vector<FakePost> posts() const;
  int most_open() const;

 private:
  friend class FakeResponse;
  void closed();
  std::function<FakeAnswer(const FakePost&)> answer_;
  FakeClock* clock_;
  mutable std::mutex mutex_;
  std::vector<FakePost> posts_;
  int open_ = 0;
  int most_open_ = 0;
};

// An SSE body of `tokens` completions chunks (the text "tok"), then [DONE].
std::vector<std::string> fake_sse_pieces(int tokens, bool chat = false);

}  // namespace meshplan
