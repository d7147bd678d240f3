#include "deploy/measure/completion_api.hpp"

#include <nlohmann/json.hpp>

#include "deploy/measure/http_wire.hpp"

namespace meshplan {
namespace {

using json = nlohmann::json;

std::string shortened(std::string_view s, size_t limit = 200) {
  std::string out;
  for (char c : s.substr(0, limit))
    out += (c == '\n' || c == '\r' || c == '\t') ? ' ' : c;
  return out + (s.size() > limit ? "..." : "");
}

// The message inside an error value: a string, or an object with "message".
std::optional<std::string> message_of(const json& e) {
  if (e.is_string()) return e.get<std::string>();
  if (e.is_object() && e.contains("message") && e["message"].is_string())
    return e["message"].get<std::string>();
  if (e.is_array() || e.is_object()) return e.dump();
  return std::nullopt;
}

std::optional<int64_t> count_at(const json& j, const char* object, const char* key) {
  if (!j.contains(object) || !j[object].is_object()) return std::nullopt;
  const json& v = j[object].value(key, json());
  if (v.is_number_integer() && v.get<int64_t>() >= 0) return v.get<int64_t>();
  return std::nullopt;
}

}  // namespace

CompletionApi parse_completion_api(const std::string& name) {
  if (name == "completions") return CompletionApi::kCompletions;
  if (name == "chat") return CompletionApi::kChat;
  throw input_error(
      "--api {}: expected completions (/v1/completions) or chat "
      "(/v1/chat/completions)",
      name);
}

std::string_view api_path(CompletionApi api) {
  return api == CompletionApi::kChat ? "/v1/chat/completions" : "/v1/completions";
}

std::string measure_prompt(int tokens) {
  std::string prompt = "hello";
  for (int i = 1; i < tokens; ++i)
    prompt += " hello";
  return prompt;
}

std::string completion_body(const CompletionRequest& request) {
  json body;
  if (!request.model.empty()) body["model"] = request.model;
  const std::string prompt = measure_prompt(request.prompt_tokens);
  if (request.api == CompletionApi::kChat)
    body["messages"] = json::array({json{{"role", "user"}, {"content", prompt}}});
  else
    body["prompt"] = prompt;
  body["max_tokens"] = request.output_tokens;
  body["ignore_eos"] = true;
  body["temperature"] = 0;
  body["stream"] = true;
  return body.dump();
}

StreamEvent read_stream_event(std::string_view data, CompletionApi api, const std::string& origin) {
  StreamEvent event;
  if (data == "[DONE]") {
    event.done = true;
    return event;
  }
  const json j = json::parse(data, nullptr, false);
  if (j.is_discarded() || !j.is_object())
    throw endpoint_failure("{}: expected a JSON object or [DONE] after \"data: \", got \"{}\"",
                           origin, shortened(data, 80));
  if (j.contains("error"))
    throw endpoint_failure("{}: the server ended the stream with an error: {}", origin,
                           shortened(message_of(j["error"]).value_or(j.dump())));
  const json& choices = j.value("choices", json());
  if (!choices.is_array())
    throw endpoint_failure("{}: expected \"choices\" (a list) in a streamed chunk, got \"{}\"",
                           origin, shortened(data, 80));
  for (const json& c : choices) {
    if (api == CompletionApi::kChat) {
      const json& delta = c.is_object() ? c.value("delta", json()) : json();
      if (!delta.is_object())
        throw endpoint_failure(
            "{}: expected choices[].delta (an object) in a chat chunk, got \"{}\"{}", origin,
            shortened(data, 80),
            c.is_object() && c.contains("text") ? " (a completions chunk: leave out --api chat)"
                                                : "");
      const json& content = delta.value("content", json());
      if (content.is_string()) event.text += content.get<std::string>();
    } else {
      const json& text = c.is_object() ? c.value("text", json()) : json();
      if (!text.is_string())
        throw endpoint_failure(
            "{}: expected choices[].text (a string) in a completions chunk, got \"{}\"{}", origin,
            shortened(data, 80),
            c.is_object() && c.contains("delta") ? " (a chat chunk: use --api chat)" : "");
      event.text += text.get<std::string>();
    }
  }
  event.completion_tokens = count_at(j, "usage", "completion_tokens");
  if (auto n = count_at(j, "timings", "predicted_n")) event.completion_tokens = n;
  if (j.contains("timings") && j["timings"].is_object()) {
    const json& tps = j["timings"].value("predicted_per_second", json());
    if (tps.is_number() && tps.get<double>() > 0) event.server_tokens_per_s = tps.get<double>();
  }
  return event;
}

std::string error_message(std::string_view body) {
  const json j = json::parse(body, nullptr, false);
  if (!j.is_discarded() && j.is_object()) {
    for (const char* key : {"error", "message", "detail"})
      if (j.contains(key))
        if (auto m = message_of(j[key])) return shortened(*m);
  }
  std::string_view trimmed = body;
  while (!trimmed.empty() &&
         (trimmed.back() == '\n' || trimmed.back() == '\r' || trimmed.back() == ' '))
    trimmed.remove_suffix(1);
  return trimmed.empty() ? "(no body)" : shortened(trimmed);
}

}  // namespace meshplan
