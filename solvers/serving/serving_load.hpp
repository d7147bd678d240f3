// One copy of the model under a load (docs/serving.md, "Under a load"): requests arrive, each is
// prefilled (which holds the decode of the others for that long, as llama-server, mlx-lm and exo
// run it) and then decoded with the others in flight. Two ways to state the load:
//  * closed: N requests in flight, each finished one replaced at once (vllm bench serve
//    --max-concurrency, meshplan measure);
//  * open: requests arrive at R a second, as a Poisson process.
// The figures are means per request: the wait for a prefill is the M/D/1 queue's, a token's time
// is the batched decode step of the streams in flight stretched by the time spent prefilling.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

namespace meshplan {

// What a copy does: the time of one decode step of n streams, the most streams that fit, and the
// prefill of one prompt.
struct CopyCurve {
  std::function<double(int)> step_s;  // n = 1 .. max_streams
  int max_streams = 1;
  double prefill_s = 0;
};

struct LoadPoint {
  double in_flight = 0;  // requests decoding at once, on average
  double requests_per_s = 0;
  double ttft_s = 0;               // mean time to first token, waiting for a prefill included
  double tpot_s = 0;               // mean time per output token after the first
  double decode_tokens_per_s = 0;  // in_flight over the decode step: tokens/s while decoding
  double output_tokens_per_s = 0;  // requests_per_s x output tokens
  double busy_prefilling = 0;      // the share of the time the copy prefills
  bool overloaded = false;         // open load: arrivals outrun what the copy finishes
};

// The copy's figures with `in_flight` requests kept in flight (1 .. max_streams).
LoadPoint closed_load(const CopyCurve& copy, int in_flight, int64_t output_tokens);

// The copy's figures with requests arriving at `rate` a second; overloaded when the prefills
// alone take all its time or the requests in flight would not fit.
LoadPoint open_load(const CopyCurve& copy, double rate, int64_t output_tokens);

// Prefill on one host and decode on another: `decode` decodes the requests in flight with no
// prefill of its own, each prompt takes `prefill_s` on the prefill host (queued M/D/1 there) and
// `handoff_s` more to reach the decode host. Overloaded when the prefills take all of the
// prefill host's time.
LoadPoint disaggregated_load(const CopyCurve& decode, double prefill_s, double handoff_s,
                             int in_flight, int64_t output_tokens);

// The latency targets of a request (0 = none) and how far a point misses them.
struct LatencyTargets {
  double ttft_s = 0;
  double tpot_s = 0;
  bool any() const { return ttft_s > 0 || tpot_s > 0; }
  bool met_by(const LoadPoint& p) const;
};

// Which target a point misses and by how much: "a mean TTFT of 2.41 s against --ttft-ms 2000
// (21 % over)"; both when both are missed; "overloaded" when arrivals outrun the copy.
std::string describe_miss(const LatencyTargets& targets, const LoadPoint& p);

}  // namespace meshplan
