// The OpenAI-compatible completion APIs as the measurement speaks them: the streamed request
// (POST /v1/completions, or /v1/chat/completions with --api chat, which exo needs) and what each
// streamed event says. llama-server, vLLM and mlx_lm.server serve both paths.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace meshplan {

enum class CompletionApi { kCompletions, kChat };

// "completions" or "chat"; input error naming both for anything else.
CompletionApi parse_completion_api(const std::string& name);
// "/v1/completions" or "/v1/chat/completions".
std::string_view api_path(CompletionApi api);

struct CompletionRequest {
  CompletionApi api = CompletionApi::kCompletions;
  std::string model;  // left out of the request when empty (llama-server serves its one model)
  int prompt_tokens = 128;  // about: the word repeated
  int output_tokens = 128;  // exactly, with ignore_eos
};

// The prompt: "hello" repeated, about one token each in the tokenizers of the catalog's models.
std::string measure_prompt(int tokens);
// The JSON body: "stream": true, "max_tokens" and "ignore_eos" (llama-server reads it in
// params_from_json_cmpl, tools/server/ of llama.cpp; vLLM's CompletionRequest and
// ChatCompletionRequest have it, vllm/entrypoints/openai/protocol.py), the prompt or one user
// message, temperature 0.
std::string completion_body(const CompletionRequest& request);

// What one event's data says.
struct StreamEvent {
  bool done = false;  // "[DONE]"
  std::string text;   // the chunk's generated text ("" for a role-only or final chunk)
  // Tokens generated as the server counts them, when it says: usage.completion_tokens, or
  // llama-server's timings.predicted_n.
  std::optional<int64_t> completion_tokens;
  // llama-server's own decode rate (timings.predicted_per_second).
  std::optional<double> server_tokens_per_s;
};

// Throws endpoint_failure naming the expected form for data that is not a completion chunk, and
// with the server's message for an error object.
StreamEvent read_stream_event(std::string_view data, CompletionApi api, const std::string& origin);

// The message of an error answer's body: {"error": {"message": ...}}, {"error": "..."},
// {"message": ...} or {"detail": ...}; else the body itself, shortened.
std::string error_message(std::string_view body);

}  // namespace meshplan
