// The bounded load of one level: `concurrency` requests in flight over the endpoint, each one
// that finishes replaced by the next until the level's budget of requests is spent (a closed
// loop), every request streamed and timed: time to first token, decode tokens/s, tokens.
#pragma once

#include <functional>
#include <optional>
#include <vector>

#include "deploy/measure/completion_api.hpp"
#include "deploy/measure/http_client.hpp"
#include "lib/core/clock.hpp"

namespace meshplan {

struct LoadOptions {
  HttpUrl url;
  CompletionRequest request;
  double timeout_s = 300;  // each request, connection to last token
};

// One request as the client saw it; times in seconds from its start.
struct RequestSample {
  double ttft_s = 0;        // to the first chunk with text
  double last_token_s = 0;  // to the last chunk with text
  int64_t chunks = 0;       // chunks with text
  int64_t tokens = 0;       // the server's count when it gives one, else the chunks
  double end_s = 0;
  std::optional<double> server_tokens_per_s;  // llama-server's own figure
  // (tokens - 1) over the time from the first to the last token; 0 below two tokens.
  double decode_tokens_per_s() const;
};

struct LevelResult {
  int concurrency = 1;
  int requests = 0;
  double wall_s = 0;  // first request sent to last answer ended
  int64_t tokens = 0;
  int64_t fewest_tokens = 0;  // the shortest answer's tokens (ignore_eos not honoured: fewer)
  double ttft_mean_s = 0;
  double ttft_p50_s = 0;
  double stream_tokens_per_s = 0;             // mean over requests of two tokens or more
  double total_tokens_per_s = 0;              // tokens over the wall time
  std::optional<double> server_tokens_per_s;  // mean of the server's own per-request figures
};

// Sends one request and reads its stream to the end. Throws endpoint_failure for a refused
// connection, a timeout, a status other than 200 (with the server's message) or a malformed
// stream; `stop` (when set by another request's failure) abandons it.
RequestSample run_request(HttpClient& client, const Clock& clock, const LoadOptions& options,
                          const std::function<bool()>& stop = {});

// The level's figures from its requests.
LevelResult summarize_level(int concurrency, const std::vector<RequestSample>& samples,
                            double wall_s);

// Runs `requests` requests, `concurrency` at a time, and summarizes them. `progress(done)` is
// called after each request (from the thread that ran it, one call at a time). The first failure
// stops the level and is thrown once the requests in flight have ended.
LevelResult run_level(HttpClient& client, const Clock& clock, const LoadOptions& options,
                      int concurrency, int requests, const std::function<void(int)>& progress);

}  // namespace meshplan
