// `meshplan measure` through the real binary against an OpenAI-style server this test runs on
// 127.0.0.1 (a real socket on an ephemeral port, chunked Server-Sent Events as llama-server
// streams them): the levels and their closed loop, the cluster file it records in and `plan`
// reading it back, and each failure with its exit code and nothing written.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>

#include "tests/test_support.hpp"

namespace meshplan::measure_cli_test {
namespace {

using nlohmann::json;
using testing::read_text;
using testing::run_meshplan;

enum class Answer { kStream, kNotFound, kMalformed, kSilent };

// A small OpenAI-compatible server: one thread per connection, one answer per connection.
class SseServer {
 public:
  explicit SseServer(Answer answer, int token_gap_ms = 2) : answer_(answer), gap_ms_(token_gap_ms) {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_EQ(::bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
    EXPECT_EQ(::listen(fd_, 64), 0);
    socklen_t len = sizeof a;
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len);
    port_ = ntohs(a.sin_port);
    accepter_ = std::thread([this] { accept_loop(); });
  }
  ~SseServer() {
    stop_ = true;
    accepter_.join();
    for (std::thread& t : connections_)
      t.join();
    ::close(fd_);
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  std::vector<std::pair<std::string, json>> requests() {
    std::lock_guard<std::mutex> lock(mutex_);
    return requests_;
  }
  int most_open() const { return most_open_; }

 private:
  void accept_loop() {
    while (!stop_) {
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, 50) <= 0) continue;
      int c = ::accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
      if (c >= 0) connections_.emplace_back([this, c] { serve(c); });
    }
  }

  // Reads one request (head and Content-Length body); false when the client went away.
  bool read_request(int c, std::string* path, std::string* body) {
    std::string in;
    char buffer[8192];
    size_t head_end;
    while ((head_end = in.find("\r\n\r\n")) == std::string::npos) {
      ssize_t n = ::recv(c, buffer, sizeof buffer, 0);
      if (n <= 0) return false;
      in.append(buffer, static_cast<size_t>(n));
    }
    const size_t length_at = in.find("Content-Length: ");
    const size_t length =
        length_at == std::string::npos ? 0 : std::stoul(in.substr(length_at + 16));
    while (in.size() < head_end + 4 + length) {
      ssize_t n = ::recv(c, buffer, sizeof buffer, 0);
      if (n <= 0) return false;
      in.append(buffer, static_cast<size_t>(n));
    }
    *path = in.substr(5, in.find(' ', 5) - 5);
    *body = in.substr(head_end + 4, length);
    return true;
  }

  static void send_all(int c, const std::string& s) { ::send(c, s.data(), s.size(), MSG_NOSIGNAL); }
  static void send_chunk(int c, const std::string& s) {
    char size[16];
    std::snprintf(size, sizeof size, "%zx\r\n", s.size());
    send_all(c, size + s + "\r\n");
  }

  void serve(int c) {
    int open = ++open_;
    for (int m = most_open_; open > m && !most_open_.compare_exchange_weak(m, open);) {
    }
    std::string path, body;
    if (read_request(c, &path, &body)) {
      json request = json::parse(body, nullptr, false);
      {
        std::lock_guard<std::mutex> lock(mutex_);
        requests_.emplace_back(path, request);
      }
      respond(c, request, &open);
    }
    if (open) --open_;
    ::close(c);
  }

  // `*open` is cleared, and the count lowered, before the stream's last chunk: the client may
  // start its next request as soon as that chunk arrives, before this thread returns.
  void respond(int c, const json& request, int* open) {
    if (answer_ == Answer::kSilent) {  // keeps the connection open, says nothing
      while (!stop_) {
        pollfd p{c, POLLIN, 0};
        if (::poll(&p, 1, 50) > 0) {
          char b;
          if (::recv(c, &b, 1, 0) <= 0) return;
        }
      }
      return;
    }
    if (answer_ == Answer::kNotFound) {
      const std::string e =
          R"({"error":{"code":404,"message":"File Not Found","type":"not_found_error"}})";
      send_all(c, "HTTP/1.1 404 Not Found\r\nContent-Type: application/json\r\nContent-Length: " +
                      std::to_string(e.size()) + "\r\n\r\n" + e);
      return;
    }
    send_all(
        c,
        "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n");
    if (answer_ == Answer::kMalformed) {
      send_chunk(c, "{\"choices\":[{\"text\":\"a\"}]}\n\n");
      send_all(c, "0\r\n\r\n");
      return;
    }
    const bool chat = request.contains("messages");
    const int tokens = request.value("max_tokens", 16);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));  // the prompt
    for (int i = 0; i < tokens; ++i) {
      json chunk = chat ? json{{"choices", {{{"index", 0}, {"delta", {{"content", "hi"}}}}}}}
                        : json{{"choices", {{{"index", 0}, {"text", " hi"}}}}};
      send_chunk(c, "data: " + chunk.dump() + "\n\n");
      std::this_thread::sleep_for(std::chrono::milliseconds(gap_ms_));
    }
    // llama-server's last chunk: its own count and rate.
    json end = chat ? json{{"index", 0}, {"delta", json::object()}, {"finish_reason", "length"}}
                    : json{{"index", 0}, {"text", ""}, {"finish_reason", "length"}};
    json last{{"choices", {end}},
              {"timings", {{"predicted_n", tokens}, {"predicted_per_second", 123.4}}}};
    --open_;
    *open = 0;
    send_chunk(c, "data: " + last.dump() + "\n\n");
    send_chunk(c, "data: [DONE]\n\n");
    send_all(c, "0\r\n\r\n");
  }

  Answer answer_;
  int gap_ms_;
  int fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::atomic<int> open_{0};
  std::atomic<int> most_open_{0};
  std::thread accepter_;
  std::vector<std::thread> connections_;  // only the accepting thread adds to it
  std::mutex mutex_;
  std::vector<std::pair<std::string, json>> requests_;
};

std::string today_utc() {
  std::time_t now = std::time(nullptr);
  char day[16];
  std::strftime(day, sizeof day, "%Y-%m-%d", std::gmtime(&now));
  return day;
}

// A copy of an example cluster and a plan made on it by the binary.
struct PlannedCluster {
  std::string cluster, plan;
  PlannedCluster() {
    const std::string dir = testing::temp_dir();
    cluster = dir + "/cluster.yaml";
    std::filesystem::copy_file(
        testing::source_path("examples/clusters/mac-studio-m3-ultra-x4.yaml"), cluster);
    plan = dir + "/plan.json";
    auto r = run_meshplan({"plan", "-c", cluster, "-m", "llama-3.3-70b-4bit", "-o", plan});
    EXPECT_EQ(r.exit_code, 0) << r.err;
  }
};

TEST(measure_cli_test, each_level_keeps_its_requests_in_flight_and_reports_its_rates) {
  // 20 ms between tokens: a client descheduled for a millisecond or two as it reads the first
  // token (a loaded CI machine) then reads the rest only a little faster than they were sent.
  constexpr int kGapMs = 20;
  constexpr double kPace = 1000.0 / kGapMs;  // tokens/s a stream decodes at
  SseServer server(Answer::kStream, kGapMs);
  auto r = run_meshplan({"measure", "--url", server.url(), "--concurrency", "1,3", "--requests",
                         "6", "--output-tokens", "8", "--prompt-tokens", "5", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json out = json::parse(r.out);
  EXPECT_EQ(out["schema"], "meshplan.measure/1");
  EXPECT_EQ(out["url"], server.url());
  ASSERT_EQ(out["levels"].size(), 2u);
  for (const json& level : out["levels"]) {
    EXPECT_EQ(level["requests"], 6);
    EXPECT_EQ(level["tokens"], 48) << "exactly the tokens asked, from the server's count";
    // A stream decodes at about the server's pace, not faster.
    EXPECT_GT(level["stream_tokens_per_s"].get<double>(), kPace / 5);
    EXPECT_LT(level["stream_tokens_per_s"].get<double>(), kPace * 1.12);
    EXPECT_GE(level["ttft_ms"]["mean"].get<double>(), 20) << "the server's prompt time";
    EXPECT_EQ(level["server_stream_tokens_per_s"], 123.4);
  }
  EXPECT_EQ(out["levels"][1]["concurrency"], 3);
  EXPECT_GT(out["levels"][1]["total_tokens_per_s"].get<double>(),
            out["levels"][0]["total_tokens_per_s"].get<double>())
      << "three streams at once carry more than one";
  auto requests = server.requests();
  ASSERT_EQ(requests.size(), 12u);
  EXPECT_EQ(server.most_open(), 3) << "the closed loop: never more than the level in flight";
  for (const auto& [path, body] : requests) {
    EXPECT_EQ(path, "/v1/completions");
    EXPECT_EQ(body["prompt"], "hello hello hello hello hello");
    EXPECT_EQ(body["max_tokens"], 8);
    EXPECT_EQ(body["ignore_eos"], true);
    EXPECT_EQ(body["stream"], true);
    EXPECT_FALSE(body.contains("model")) << "llama-server serves its one model";
  }
  EXPECT_NE(r.err.find("concurrency 3: 6 requests of 8 tokens to " + server.url()),
            std::string::npos)
      << r.err;
}

TEST(measure_cli_test, the_chat_api_and_a_model_name_go_into_each_request) {
  SseServer server(Answer::kStream);
  auto r = run_meshplan({"measure", "--url", server.url() + "/", "--api", "chat", "--model",
                         "Qwen/Qwen3-8B", "--requests", "1", "--output-tokens", "3"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("concurrency  requests  TTFT mean  TTFT p50  tokens/s a stream"),
            std::string::npos)
      << r.out;
  auto requests = server.requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].first, "/v1/chat/completions");
  EXPECT_EQ(requests[0].second["model"], "Qwen/Qwen3-8B");
  const std::string prompt = requests[0].second["messages"][0]["content"];
  EXPECT_EQ(prompt.size(), 128u * 6 - 1) << "128 words by default, one token each";
  EXPECT_EQ(prompt.rfind("hello hello ", 0), 0u);
}

TEST(measure_cli_test, the_cluster_records_the_levels_and_plan_prints_them_beside_its_prediction) {
  PlannedCluster planned;
  SseServer server(Answer::kStream);
  auto r = run_meshplan({"measure", "--url", server.url(), "--plan", planned.plan, "-c",
                         planned.cluster, "--requests", "2", "--output-tokens", "6"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("predicted a stream  predicted in all  predicted TTFT"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("21.8  "), std::string::npos) << "the plan's 21.8 tokens/s\n" << r.out;
  json plan = json::parse(read_text(planned.plan));
  EXPECT_EQ(server.requests()[0].second["prompt"].get<std::string>().size(),
            plan["prompt"].get<size_t>() * 6 - 1)
      << "the plan's prompt, a word a token";
  json cluster = json::parse(read_text(planned.cluster));
  ASSERT_EQ(cluster["measured_serving"].size(), 1u);
  const json& m = cluster["measured_serving"][0];
  EXPECT_EQ(m["date"], today_utc());
  EXPECT_EQ(m["url"], server.url());
  EXPECT_EQ(m["model"], "llama-3.3-70b-4bit");
  EXPECT_EQ(m["engine"], plan["engine"]);
  EXPECT_EQ(m["concurrency"], 1);
  EXPECT_EQ(m["hosts"].size(), plan["ranks"].size());
  EXPECT_EQ(cluster["hosts"].size(), 4u) << "everything else kept";

  auto again = run_meshplan({"plan", "-c", planned.cluster, "-m", "llama-3.3-70b-4bit"});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  const std::string line = "Measured " + today_utc() + " at concurrency 1: ";
  const size_t at = again.out.find(line);
  ASSERT_NE(at, std::string::npos) << again.out;
  EXPECT_NE(again.out.find("(predicted 21.8 a stream)\n", at), std::string::npos) << again.out;
  EXPECT_LT(again.out.find("Predicted: "), at) << "right under the prediction";
  auto as_json =
      run_meshplan({"plan", "-c", planned.cluster, "-m", "llama-3.3-70b-4bit", "--json"});
  json recorded = json::parse(as_json.out)["measured"];
  ASSERT_EQ(recorded.size(), 1u);
  EXPECT_EQ(recorded[0]["stream_tokens_per_s"], m["stream_tps"]);
  EXPECT_EQ(recorded[0]["predicted_stream_tokens_per_s"], plan["predicted"]["decode_tokens_per_s"]);
  // -o writes the cluster elsewhere and leaves -c's file as it was.
  const std::string kept = read_text(planned.cluster);
  const std::string elsewhere = planned.cluster + ".measured.json";
  auto to_other = run_meshplan({"measure", "--url", server.url(), "--plan", planned.plan, "-c",
                                planned.cluster, "-o", elsewhere, "--concurrency", "2",
                                "--requests", "2", "--output-tokens", "3"});
  ASSERT_EQ(to_other.exit_code, 0) << to_other.err;
  EXPECT_EQ(read_text(planned.cluster), kept);
  EXPECT_EQ(json::parse(read_text(elsewhere))["measured_serving"].size(), 2u)
      << "concurrency 2 added beside 1";
  // Another model over the same hosts has no measurement.
  auto other = run_meshplan({"plan", "-c", planned.cluster, "-m", "qwen3-235b-a22b-8bit"});
  EXPECT_EQ(other.out.find("Measured "), std::string::npos) << other.out;
}

TEST(measure_cli_test, endpoint_failures_exit_3_and_write_nothing) {
  PlannedCluster planned;
  const std::string before = read_text(planned.cluster);
  int closed_port;
  {
    SseServer gone(Answer::kStream);
    closed_port = std::stoi(gone.url().substr(gone.url().rfind(':') + 1));
  }
  const std::string refused_url = "http://127.0.0.1:" + std::to_string(closed_port);
  auto refused = run_meshplan(
      {"measure", "--url", refused_url, "--plan", planned.plan, "-c", planned.cluster});
  EXPECT_EQ(refused.exit_code, 3);
  EXPECT_NE(refused.err.find(refused_url + ": connection refused"), std::string::npos)
      << refused.err;

  SseServer not_found(Answer::kNotFound);
  auto missing = run_meshplan(
      {"measure", "--url", not_found.url(), "--plan", planned.plan, "-c", planned.cluster});
  EXPECT_EQ(missing.exit_code, 3);
  EXPECT_NE(missing.err.find("POST /v1/completions answered 404 Not Found: File Not Found (a "
                             "server with only the chat API, such as exo, needs --api chat)"),
            std::string::npos)
      << missing.err;

  SseServer malformed(Answer::kMalformed);
  auto bad = run_meshplan(
      {"measure", "--url", malformed.url(), "--plan", planned.plan, "-c", planned.cluster});
  EXPECT_EQ(bad.exit_code, 3);
  EXPECT_NE(bad.err.find("expected Server-Sent Events lines (\"data: {...}\")"), std::string::npos)
      << bad.err;

  SseServer silent(Answer::kSilent);
  const auto began = std::chrono::steady_clock::now();
  auto slow = run_meshplan({"measure", "--url", silent.url(), "--timeout-s", "1", "--plan",
                            planned.plan, "-c", planned.cluster});
  EXPECT_EQ(slow.exit_code, 3);
  EXPECT_NE(slow.err.find("timed out after 1 s waiting for the answer's status line (--timeout-s)"),
            std::string::npos)
      << slow.err;
  EXPECT_LT(std::chrono::steady_clock::now() - began, std::chrono::seconds(20));
  EXPECT_EQ(read_text(planned.cluster), before) << "nothing written on a failure";
}

TEST(measure_cli_test, bad_arguments_exit_2_with_the_form_expected) {
  PlannedCluster planned;
  auto level = run_meshplan({"measure", "--url", "http://127.0.0.1:1", "--concurrency", "1,0"});
  EXPECT_EQ(level.exit_code, 2);
  EXPECT_NE(level.err.find("--concurrency 1,0: expected requests in flight, 1-4096 each"),
            std::string::npos)
      << level.err;
  auto no_plan = run_meshplan({"measure", "--url", "http://127.0.0.1:1", "-c", planned.cluster});
  EXPECT_EQ(no_plan.exit_code, 2);
  EXPECT_NE(no_plan.err.find("give the plan with --plan"), std::string::npos) << no_plan.err;
  auto api = run_meshplan({"measure", "--url", "http://127.0.0.1:1", "--api", "responses"});
  EXPECT_EQ(api.exit_code, 2);
  auto few = run_meshplan(
      {"measure", "--url", "http://127.0.0.1:1", "--concurrency", "4", "--requests", "2"});
  EXPECT_EQ(few.exit_code, 2);
  EXPECT_NE(few.err.find("--requests 2: below the concurrency 4"), std::string::npos) << few.err;
  auto cluster_as_plan =
      run_meshplan({"measure", "--url", "http://127.0.0.1:1", "--plan", planned.cluster});
  EXPECT_EQ(cluster_as_plan.exit_code, 2);
  EXPECT_NE(cluster_as_plan.err.find(planned.cluster), std::string::npos) << cluster_as_plan.err;
  EXPECT_EQ(run_meshplan({"measure"}).exit_code, 2) << "--url is required";
  auto help = run_meshplan({"measure", "--help"});
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.out.find("meshplan measure --url http://10.0.0.1:8080"), std::string::npos);
}

}  // namespace
}  // namespace meshplan::measure_cli_test
