#include "deploy/measure/completion_api.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "lib/core/error.hpp"

namespace meshplan::completion_api_test {
namespace {

using nlohmann::json;

std::string failure_of(std::string_view data, CompletionApi api) {
  try {
    read_stream_event(data, api, "http://h:1");
  } catch (const Error& e) {
    EXPECT_EQ(exit_code(e.kind()), 3);
    return e.what();
  }
  return "no error";
}

TEST(completion_api_test, the_body_streams_exactly_the_tokens_asked) {
  CompletionRequest r;
  r.prompt_tokens = 3;
  r.output_tokens = 64;
  json body = json::parse(completion_body(r));
  EXPECT_EQ(body["prompt"], "hello hello hello");
  EXPECT_EQ(body["max_tokens"], 64);
  EXPECT_EQ(body["ignore_eos"], true);
  EXPECT_EQ(body["stream"], true);
  EXPECT_FALSE(body.contains("model")) << "left out when not given";
  r.api = CompletionApi::kChat;
  r.model = "Qwen/Qwen3-8B";
  body = json::parse(completion_body(r));
  EXPECT_EQ(body["model"], "Qwen/Qwen3-8B");
  EXPECT_EQ(body["messages"][0]["role"], "user");
  EXPECT_EQ(body["messages"][0]["content"], "hello hello hello");
  EXPECT_FALSE(body.contains("prompt"));
  EXPECT_EQ(api_path(CompletionApi::kChat), "/v1/chat/completions");
  EXPECT_EQ(api_path(parse_completion_api("completions")), "/v1/completions");
  EXPECT_THROW(parse_completion_api("responses"), Error);
}

TEST(completion_api_test, chunks_give_their_text_and_the_servers_counts) {
  StreamEvent e = read_stream_event(R"({"choices":[{"index":0,"text":" the"}]})",
                                    CompletionApi::kCompletions, "o");
  EXPECT_EQ(e.text, " the");
  EXPECT_FALSE(e.done);
  EXPECT_TRUE(read_stream_event("[DONE]", CompletionApi::kCompletions, "o").done);
  // vLLM's first chat chunk names the role and carries no text.
  EXPECT_EQ(read_stream_event(R"({"choices":[{"delta":{"role":"assistant","content":""}}]})",
                              CompletionApi::kChat, "o")
                .text,
            "");
  // llama-server's last chunk: its own count and decode rate.
  StreamEvent last = read_stream_event(
      R"({"choices":[{"text":"","finish_reason":"length"}],"timings":{"predicted_n":128,"predicted_per_second":41.5}})",
      CompletionApi::kCompletions, "o");
  EXPECT_EQ(last.completion_tokens, 128);
  EXPECT_EQ(last.server_tokens_per_s, 41.5);
  StreamEvent usage = read_stream_event(R"({"choices":[],"usage":{"completion_tokens":64}})",
                                        CompletionApi::kChat, "o");
  EXPECT_EQ(usage.completion_tokens, 64);
}

TEST(completion_api_test, other_data_names_the_form_expected) {
  EXPECT_EQ(failure_of("not json", CompletionApi::kCompletions),
            "http://h:1: expected a JSON object or [DONE] after \"data: \", got \"not json\"");
  EXPECT_NE(failure_of(R"({"choices":[{"delta":{"content":"x"}}]})", CompletionApi::kCompletions)
                .find("expected choices[].text (a string) in a completions chunk"),
            std::string::npos);
  EXPECT_NE(failure_of(R"({"choices":[{"delta":{"content":"x"}}]})", CompletionApi::kCompletions)
                .find("use --api chat"),
            std::string::npos);
  EXPECT_NE(failure_of(R"({"choices":[{"text":"x"}]})", CompletionApi::kChat)
                .find("leave out --api chat"),
            std::string::npos);
  EXPECT_NE(failure_of(R"({"object":"chunk"})", CompletionApi::kChat).find("expected \"choices\""),
            std::string::npos);
  EXPECT_EQ(failure_of(R"({"error":{"message":"context full","code":400}})", CompletionApi::kChat),
            "http://h:1: the server ended the stream with an error: context full");
}

TEST(completion_api_test, error_bodies_give_the_servers_message) {
  EXPECT_EQ(error_message(
                R"({"error":{"code":404,"message":"File Not Found","type":"not_found_error"}})"),
            "File Not Found");
  EXPECT_EQ(
      error_message(R"({"object":"error","message":"The model `x` does not exist.","code":404})"),
      "The model `x` does not exist.");
  EXPECT_EQ(error_message(R"({"detail":"Not Found"})"), "Not Found");
  EXPECT_EQ(error_message("Bad Gateway\n"), "Bad Gateway");
  EXPECT_EQ(error_message(""), "(no body)");
}

}  // namespace
}  // namespace meshplan::completion_api_test
