#include "deploy/measure/load_runner.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <numeric>
#include <thread>

#include "deploy/measure/sse_parser.hpp"

namespace meshplan {
namespace {

// The answer of a request whose status is not 200: the status and the server's message, with
// the likely fix for the errors a wrong API or model gives.
[[noreturn]] void refuse_status(HttpResponse& response, const LoadOptions& options,
                                const std::string& path) {
  const HttpHead& head = response.head();
  std::string message;
  try {
    message = error_message(read_whole_body(response, 64 * 1024));
  } catch (const Error&) {
    message = "(the body could not be read)";
  }
  std::string hint;
  if (head.status == 404 && options.request.api == CompletionApi::kCompletions)
    hint = " (a server with only the chat API, such as exo, needs --api chat)";
  else if ((head.status == 400 || head.status == 404) && options.request.model.empty())
    hint = " (does the server need --model NAME?)";
  throw endpoint_failure("{}: POST {} answered {} {}: {}{}", options.url.origin(), path,
                         head.status, head.reason, message, hint);
}

}  // namespace

double RequestSample::decode_tokens_per_s() const {
  const double span = last_token_s - ttft_s;
  if (tokens < 2 || span <= 0) return 0;
  return static_cast<double>(tokens - 1) / span;
}

RequestSample run_request(HttpClient& client, const Clock& clock, const LoadOptions& options,
                          const std::function<bool()>& stop) {
  const std::string path = request_path(options.url, api_path(options.request.api));
  const std::string origin = options.url.origin();
  const double start = clock.now_seconds();
  auto response =
      client.post(options.url, path, completion_body(options.request), options.timeout_s);
  if (response->head().status != 200) refuse_status(*response, options, path);
  const std::string* type = response->head().header("content-type");
  if (type && type->find("text/event-stream") == std::string::npos)
    throw endpoint_failure(
        "{}: POST {} answered with {}, expected a stream of Server-Sent Events "
        "(text/event-stream): does the server stream (\"stream\": true)?",
        origin, path, *type);
  RequestSample sample;
  SseParser parser(origin);
  std::optional<int64_t> server_tokens;
  bool done = false;
  auto take = [&](const std::vector<std::string>& events) {
    for (const std::string& data : events) {
      if (done) return;  // anything after [DONE] is not read
      StreamEvent e = read_stream_event(data, options.request.api, origin);
      if (e.done) {
        done = true;
        return;
      }
      if (!e.text.empty()) {
        const double t = clock.now_seconds() - start;
        if (sample.chunks == 0) sample.ttft_s = t;
        sample.last_token_s = t;
        ++sample.chunks;
      }
      if (e.completion_tokens) server_tokens = e.completion_tokens;
      if (e.server_tokens_per_s) sample.server_tokens_per_s = e.server_tokens_per_s;
    }
  };
  while (!done) {
    if (stop && stop()) throw endpoint_failure("{}: stopped", origin);
    std::optional<std::string> bytes = response->read_some();
    if (!bytes) {
      take(parser.finish());
      break;
    }
    take(parser.feed(*bytes));
  }
  if (sample.chunks == 0)
    throw endpoint_failure(
        "{}: POST {} streamed no text (expected at least one chunk with {})", origin, path,
        options.request.api == CompletionApi::kChat ? "choices[].delta.content" : "choices[].text");
  sample.tokens = server_tokens && *server_tokens > 0 ? *server_tokens : sample.chunks;
  sample.end_s = clock.now_seconds() - start;
  return sample;
}

LevelResult summarize_level(int concurrency, const std::vector<RequestSample>& samples,
                            double wall_s) {
  LevelResult r;
  r.concurrency = concurrency;
  r.requests = static_cast<int>(samples.size());
  r.wall_s = wall_s;
  if (samples.empty()) return r;
  std::vector<double> ttft;
  double decode_sum = 0, server_sum = 0;
  int decoded = 0, served = 0;
  r.fewest_tokens = samples.front().tokens;
  for (const RequestSample& s : samples) {
    r.tokens += s.tokens;
    r.fewest_tokens = std::min(r.fewest_tokens, s.tokens);
    ttft.push_back(s.ttft_s);
    if (double d = s.decode_tokens_per_s(); d > 0) {
      decode_sum += d;
      ++decoded;
    }
    if (s.server_tokens_per_s) {
      server_sum += *s.server_tokens_per_s;
      ++served;
    }
  }
  std::sort(ttft.begin(), ttft.end());
  r.ttft_mean_s = std::accumulate(ttft.begin(), ttft.end(), 0.0) / static_cast<double>(ttft.size());
  const size_t n = ttft.size();
  r.ttft_p50_s = n % 2 ? ttft[n / 2] : (ttft[n / 2 - 1] + ttft[n / 2]) / 2;
  if (decoded) r.stream_tokens_per_s = decode_sum / decoded;
  if (wall_s > 0) r.total_tokens_per_s = static_cast<double>(r.tokens) / wall_s;
  if (served) r.server_tokens_per_s = server_sum / served;
  return r;
}

LevelResult run_level(HttpClient& client, const Clock& clock, const LoadOptions& options,
                      int concurrency, int requests, const std::function<void(int)>& progress) {
  std::atomic<int> next{0};
  std::atomic<bool> failed{false};
  std::mutex mutex;  // guards samples, first_error and the progress calls
  std::vector<RequestSample> samples;
  std::exception_ptr first_error;
  auto stop = [&failed] { return failed.load(); };
  auto worker = [&] {
    while (!failed && next.fetch_add(1) < requests) {
      try {
        RequestSample s = run_request(client, clock, options, stop);
        std::lock_guard<std::mutex> lock(mutex);
        samples.push_back(s);
        if (progress) progress(static_cast<int>(samples.size()));
      } catch (...) {
        std::lock_guard<std::mutex> lock(mutex);
        if (!failed.exchange(true)) first_error = std::current_exception();
      }
    }
  };
  const double start = clock.now_seconds();
  std::vector<std::thread> threads;
  const int streams = std::min(concurrency, requests);
  for (int i = 0; i + 1 < streams; ++i)
    threads.emplace_back(worker);
  worker();  // the last stream on this thread
  for (std::thread& t : threads)
    t.join();
  if (first_error) std::rethrow_exception(first_error);
  return summarize_level(concurrency, samples, clock.now_seconds() - start);
}

}  // namespace meshplan
