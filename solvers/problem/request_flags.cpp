#include "solvers/problem/request_flags.hpp"

#include <cmath>

#include "lib/core/error.hpp"
#include "lib/core/units.hpp"
#include "lib/plan/strategy_kind.hpp"

namespace meshplan {

int64_t token_count(const std::string& flag, const std::string& text) {
  auto n = parse_token_count(text);
  if (!n)
    throw input_error("{} {}: expected a number of tokens, e.g. 32768, 32k or 128K (k = 1024)",
                      flag, text);
  return *n;
}

LayerPin parse_pin(const std::string& text) {
  auto eq = text.find('=');
  auto dash = text.find('-', eq == std::string::npos ? 0 : eq);
  if (eq == std::string::npos || dash == std::string::npos || eq == 0)
    throw input_error(
        "--pin {}: expected HOST=FIRST-LAST, e.g. m3-ultra-1=0-20 (layers 0 to 20 inclusive)",
        text);
  LayerPin pin;
  pin.host = text.substr(0, eq);
  try {
    size_t used = 0;
    std::string a = text.substr(eq + 1, dash - eq - 1), b = text.substr(dash + 1);
    pin.start = std::stoi(a, &used);
    if (used != a.size()) throw std::invalid_argument(a);
    pin.end = std::stoi(b, &used) + 1;
    if (used != b.size()) throw std::invalid_argument(b);
  } catch (const std::exception&) {
    throw input_error("--pin {}: expected HOST=FIRST-LAST with layer numbers, e.g. m3-ultra-1=0-20",
                      text);
  }
  if (pin.start < 0 || pin.end <= pin.start)
    throw input_error("--pin {}: the last layer must not be before the first", text);
  return pin;
}

void parse_headroom(const std::string& text, PlanRequest& r) {
  std::string t = trim(text);
  const char* form =
      "expected a fraction of each host's usable memory (0.1 or 10%) or a size "
      "(8GiB)";
  if (!t.empty() && t.back() == '%') {
    try {
      size_t used = 0;
      double v = std::stod(t.substr(0, t.size() - 1), &used);
      if (used != t.size() - 1 || v < 0 || v >= 100) throw std::invalid_argument(t);
      r.headroom_fraction = v / 100;
      return;
    } catch (const std::exception&) {
      throw input_error("--headroom {}: {}", text, form);
    }
  }
  if (t.find_first_not_of("0123456789.") == std::string::npos && !t.empty()) {
    double v = 0;
    try {
      v = std::stod(t);
    } catch (const std::exception&) {
      throw input_error("--headroom {}: {}", text, form);
    }
    if (v < 0 || v >= 1) throw input_error("--headroom {}: {}; a fraction is below 1", text, form);
    r.headroom_fraction = v;
    return;
  }
  auto bytes = parse_bytes(t);
  if (!bytes || *bytes < 0) throw input_error("--headroom {}: {}", text, form);
  r.headroom_bytes = *bytes;
}

void apply_serving_flags(const ServingFlags& f, PlanRequest& request) {
  auto positive = [](const char* flag, double v, const char* form) {
    if (!(v >= 0) || std::isinf(v)) throw input_error("{} {}: expected {}, above 0", flag, v, form);
  };
  positive("--rate", f.rate, "requests a second");
  positive("--ttft-ms", f.ttft_ms, "milliseconds");
  positive("--tpot-ms", f.tpot_ms, "milliseconds");
  positive("--min-stream-tps", f.min_stream_tps, "tokens/s");
  if (f.tpot_ms > 0 && f.min_stream_tps > 0)
    throw input_error(
        "--tpot-ms {} and --min-stream-tps {} say the same thing (--min-stream-tps X is "
        "--tpot-ms 1000/X); give one",
        f.tpot_ms, f.min_stream_tps);
  if (f.rate > 0 && request.concurrency > 0)
    throw input_error(
        "--rate {} and --concurrency {} are two ways to state the load (requests arriving a "
        "second, or requests in flight); give one",
        f.rate, request.concurrency);
  request.rate = f.rate;
  request.ttft_target_s = f.ttft_ms / 1000;
  request.tpot_target_s = f.min_stream_tps > 0 ? 1 / f.min_stream_tps : f.tpot_ms / 1000;
  if ((request.ttft_target_s > 0 || request.tpot_target_s > 0 || request.rate > 0) &&
      request.objective.empty())
    request.objective = "throughput";
  if (!f.output_tokens.empty())
    request.output_tokens = token_count("--output-tokens", f.output_tokens);
}

void apply_request_flags(const RequestFlags& f, PlanRequest& request) {
  request.context = token_count("--context", f.context);
  request.prompt = f.prompt == "0" ? 0 : token_count("--prompt", f.prompt);
  if (!f.headroom.empty()) parse_headroom(f.headroom, request);
  if (!f.hosts.empty()) request.hosts = f.hosts;
  for (const auto& p : f.pins)
    request.pins.push_back(parse_pin(p));
  // The degree inside a host is the pipeline's choice (its groups of GPUs are stages); the other
  // strategies split every layer over every GPU they use.
  if (request.tensor_degree > 0 && !is_strategy(request.strategy, StrategyKind::kPipeline))
    throw input_error(
        "--tensor-degree {} sets the pipeline's groups of GPUs inside a host; give --strategy "
        "pipeline with it",
        request.tensor_degree);
  if (is_strategy(request.strategy, StrategyKind::kRouted)) {
    if (request.objective == "latency")
      throw input_error("--strategy routed plans for --objective throughput, not latency");
    request.objective = "throughput";
  }
}

}  // namespace meshplan
