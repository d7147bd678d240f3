#include "deploy/measure/load_runner.hpp"

#include <gtest/gtest.h>

#include <atomic>

#include "deploy/measure/fake_http_client.hpp"

namespace meshplan::load_runner_test {
namespace {

LoadOptions options(CompletionApi api = CompletionApi::kCompletions) {
  LoadOptions o;
  o.url = parse_http_url("http://10.0.0.1:8080");
  o.request.api = api;
  o.request.prompt_tokens = 4;
  o.request.output_tokens = 5;
  o.timeout_s = 30;
  return o;
}

std::string failure_of(HttpClient& client, const Clock& clock, const LoadOptions& o) {
  try {
    run_request(client, clock, o);
  } catch (const Error& e) {
    EXPECT_EQ(exit_code(e.kind()), 3) << e.what();
    return e.what();
  }
  return "no error";
}

TEST(load_runner_test, a_request_is_timed_from_its_start_to_its_first_and_last_token) {
  FakeClock clock;
  clock.now = 100;
  FakeHttpClient client(
      [](const FakePost&) {
        FakeAnswer a;
        a.pieces = fake_sse_pieces(5);
        a.seconds_per_piece = 0.05;
        return a;
      },
      &clock);
  RequestSample s = run_request(client, clock, options());
  EXPECT_NEAR(s.ttft_s, 0.05, 1e-9);
  EXPECT_NEAR(s.last_token_s, 0.25, 1e-9);
  EXPECT_EQ(s.chunks, 5);
  EXPECT_EQ(s.tokens, 5);
  EXPECT_NEAR(s.decode_tokens_per_s(), 4 / 0.2, 1e-6) << "tokens after the first over their time";
  ASSERT_EQ(client.posts().size(), 1u);
  EXPECT_EQ(client.posts()[0].path, "/v1/completions");
  EXPECT_NE(client.posts()[0].body.find("\"max_tokens\":5"), std::string::npos);
  EXPECT_DOUBLE_EQ(client.posts()[0].timeout_s, 30) << "--timeout-s";
}

TEST(load_runner_test, the_servers_count_stands_for_the_chunks) {
  FakeClock clock;
  FakeHttpClient client(
      [](const FakePost&) {
        FakeAnswer a;
        a.pieces = fake_sse_pieces(4, true);
        a.pieces.insert(a.pieces.end() - 1,
                        R"(data: {"choices":[],"usage":{"completion_tokens":8}})"
                        "\n\n");
        a.seconds_per_piece = 0.1;
        return a;
      },
      &clock);
  RequestSample s = run_request(client, clock, options(CompletionApi::kChat));
  EXPECT_EQ(client.posts()[0].path, "/v1/chat/completions");
  EXPECT_EQ(s.chunks, 4);
  EXPECT_EQ(s.tokens, 8);
}

TEST(load_runner_test, a_level_keeps_its_concurrency_in_flight_until_its_budget_is_spent) {
  SteadyClock clock;
  std::atomic<int> answered{0};
  FakeHttpClient client(
      [&](const FakePost&) {
        ++answered;
        FakeAnswer a;
        a.pieces = fake_sse_pieces(5);
        a.seconds_per_piece = 0.004;
        return a;
      },
      nullptr);
  std::vector<int> progress;
  LevelResult r =
      run_level(client, clock, options(), 4, 10, [&](int done) { progress.push_back(done); });
  EXPECT_EQ(answered.load(), 10);
  EXPECT_EQ(r.requests, 10);
  EXPECT_EQ(r.concurrency, 4);
  EXPECT_EQ(r.tokens, 50);
  EXPECT_EQ(r.fewest_tokens, 5);
  EXPECT_EQ(client.most_open(), 4) << "never more, and the loop fills every stream";
  EXPECT_EQ(progress, (std::vector<int>{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}));
  EXPECT_GT(r.stream_tokens_per_s, 0);
  EXPECT_NEAR(r.total_tokens_per_s, 50 / r.wall_s, 1e-9);
}

TEST(load_runner_test, error_answers_give_the_status_the_message_and_the_likely_fix) {
  FakeClock clock;
  FakeAnswer answer;
  FakeHttpClient client([&](const FakePost&) { return answer; }, &clock);
  answer.status = 404;
  answer.content_type = "application/json";
  answer.pieces = {R"({"detail":"Not Found"})"};
  EXPECT_EQ(failure_of(client, clock, options()),
            "http://10.0.0.1:8080: POST /v1/completions answered 404 Error: Not Found (a server "
            "with only the chat API, such as exo, needs --api chat)");
  answer.status = 400;
  answer.pieces = {R"({"object":"error","message":"The model `x` does not exist."})"};
  EXPECT_EQ(failure_of(client, clock, options(CompletionApi::kChat)),
            "http://10.0.0.1:8080: POST /v1/chat/completions answered 400 Error: The model `x` "
            "does not exist. (does the server need --model NAME?)");
  answer.status = 200;
  answer.pieces = {R"({"choices":[{"text":"all at once"}]})"};
  EXPECT_NE(failure_of(client, clock, options())
                .find("answered with application/json, expected "
                      "a stream of Server-Sent Events"),
            std::string::npos);
  answer.content_type = "text/event-stream";
  answer.pieces = {"data: [DONE]\n\n"};
  EXPECT_NE(failure_of(client, clock, options())
                .find("streamed no text (expected at least one "
                      "chunk with choices[].text)"),
            std::string::npos);
}

TEST(load_runner_test, the_first_failure_stops_the_level_and_is_thrown) {
  SteadyClock clock;
  std::atomic<int> posts{0};
  FakeHttpClient client(
      [&](const FakePost&) {
        FakeAnswer a;
        if (++posts == 3) {
          a.refuse = "http://10.0.0.1:8080: connection refused";
          return a;
        }
        a.pieces = fake_sse_pieces(3);
        a.seconds_per_piece = 0.002;
        return a;
      },
      nullptr);
  try {
    run_level(client, clock, options(), 2, 100, {});
    FAIL() << "the refusal is thrown";
  } catch (const Error& e) {
    EXPECT_EQ(exit_code(e.kind()), 3);
    EXPECT_EQ(std::string(e.what()), "http://10.0.0.1:8080: connection refused");
  }
  EXPECT_LT(posts.load(), 10) << "no request is sent after the failure but those in flight";
}

TEST(load_runner_test, a_level_summary_has_the_mean_and_median_ttft) {
  std::vector<RequestSample> samples(4);
  const double ttft[] = {0.1, 0.4, 0.2, 0.3};
  for (int i = 0; i < 4; ++i) {
    samples[i].ttft_s = ttft[i];
    samples[i].last_token_s = ttft[i] + 1;
    samples[i].tokens = 11 + i;  // 10 .. 13 tokens a second after the first
  }
  LevelResult r = summarize_level(2, samples, 2.0);
  EXPECT_DOUBLE_EQ(r.ttft_mean_s, 0.25);
  EXPECT_DOUBLE_EQ(r.ttft_p50_s, 0.25);
  EXPECT_DOUBLE_EQ(r.stream_tokens_per_s, 11.5);
  EXPECT_EQ(r.tokens, 11 + 12 + 13 + 14);
  EXPECT_DOUBLE_EQ(r.total_tokens_per_s, 50 / 2.0);
  EXPECT_EQ(r.fewest_tokens, 11);
  EXPECT_FALSE(r.server_tokens_per_s);
  samples.pop_back();
  EXPECT_DOUBLE_EQ(summarize_level(2, samples, 1).ttft_p50_s, 0.2);
}

}  // namespace
}  // namespace meshplan::load_runner_test
