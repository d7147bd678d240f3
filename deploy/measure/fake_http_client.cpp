#include "deploy/measure/fake_http_client.hpp"

#include <chrono>
#include <thread>

namespace meshplan {

class FakeResponse : public HttpResponse {
 public:
  FakeResponse(FakeHttpClient& client, FakeAnswer answer)
      : client_(client), answer_(std::move(answer)) {
    head_.status = answer_.status;
    head_.reason = answer_.status == 200 ? "OK" : "Error";
    if (!answer_.content_type.empty()) head_.headers["content-type"] = answer_.content_type;
  }
  ~FakeResponse() override { client_.closed(); }

  const HttpHead& head() const override { return head_; }

  std::optional<std::string> read_some() override {
    if (next_ >= answer_.pieces.size()) return std::nullopt;
    if (client_.clock_)
      client_.clock_->now += answer_.seconds_per_piece;
    else if (answer_.seconds_per_piece > 0)
      std::this_thread::sleep_for(std::chrono::duration<double>(answer_.seconds_per_piece));
    return answer_.pieces[next_++];
  }

 private:
  FakeHttpClient& client_;
  FakeAnswer answer_;
  HttpHead head_;
  size_t next_ = 0;
};

std::unique_ptr<HttpResponse> FakeHttpClient::post(const HttpUrl&, const std::string& path,
                                                   const std::string& body, double timeout_s) {
  FakePost post{path, body, timeout_s};
  FakeAnswer answer = answer_(post);
  if (!answer.refuse.empty()) throw endpoint_failure("{}", answer.refuse);
  std::lock_guard<std::mutex> lock(mutex_);
  posts_.push_back(post);
  most_open_ = std::max(most_open_, ++open_);
  return std::make_unique<FakeResponse>(*this, std::move(answer));
}

void FakeHttpClient::closed() {
  std::lock_guard<std::mutex> lock(mutex_);
  --open_;
}

std::vector<FakePost> FakeHttpClient::posts() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return posts_;
}

int FakeHttpClient::most_open() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return most_open_;
}

std::vector<std::string> fake_sse_pieces(int tokens, bool chat) {
  const std::string chunk = chat ? R"(data: {"choices":[{"index":0,"delta":{"content":"tok"}}]})"
                                 : R"(data: {"choices":[{"index":0,"text":"tok"}]})";
  std::vector<std::string> pieces(static_cast<size_t>(tokens), chunk + "\n\n");
  pieces.push_back("data: [DONE]\n\n");
  return pieces;
}

}  // namespace meshplan
