#include "solvers/serving/serving_load.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

namespace meshplan {
namespace {

// The decode step at a mean of n streams in flight (between two counts, the line between them).
double step_at(const CopyCurve& copy, double n) {
  n = std::clamp(n, 1.0, static_cast<double>(copy.max_streams));
  const int lo = static_cast<int>(std::floor(n));
  if (lo >= copy.max_streams) return copy.step_s(copy.max_streams);
  const double a = copy.step_s(lo), b = copy.step_s(lo + 1);
  return a + (b - a) * (n - lo);
}

// One request's figures at a prefill utilisation rho and n streams decoding. What a request
// waits for and is held by are the others' prefills and decode steps: n - 1 of the n in flight,
// so that one request alone sees exactly one copy's prefill and step.
LoadPoint point(const CopyCurve& copy, double n, double rho, int64_t output_tokens) {
  LoadPoint p;
  n = std::max(n, 1e-9);
  const double step = step_at(copy, n);
  const double others = std::max(0.0, n - 1) / n;
  const double held = rho * others;  // the share of its decode that others' prefills hold
  p.in_flight = n;
  p.busy_prefilling = rho;
  p.tpot_s = step / (1 - held);
  // M/D/1: a prompt waits held t / (2 (1 - held)) for the prefills ahead of it, and half a step
  // for the decode step under way.
  p.ttft_s = copy.prefill_s + held * copy.prefill_s / (2 * (1 - held)) + others * step / 2;
  const double tokens = static_cast<double>(std::max<int64_t>(output_tokens, 1));
  const double request_s = p.ttft_s + (tokens - 1) * p.tpot_s;
  p.requests_per_s = n / request_s;
  p.decode_tokens_per_s = n / step;
  p.output_tokens_per_s = p.requests_per_s * tokens;
  return p;
}

double request_s(const LoadPoint& p, int64_t output_tokens) {
  return p.ttft_s + static_cast<double>(std::max<int64_t>(output_tokens, 1) - 1) * p.tpot_s;
}

}  // namespace

LoadPoint closed_load(const CopyCurve& copy, int in_flight, int64_t output_tokens) {
  const double n = std::clamp(in_flight, 1, copy.max_streams);
  if (copy.prefill_s <= 0) return point(copy, n, 0, output_tokens);
  // rho = (requests/s) x prefill = n x prefill / (request time at rho); rho x request time grows
  // with rho, so the one root is found by bisection.
  double lo = 0, hi = 1;
  for (int i = 0; i < 80; ++i) {
    const double rho = (lo + hi) / 2;
    const double t = request_s(point(copy, n, rho, output_tokens), output_tokens);
    (rho * t < n * copy.prefill_s ? lo : hi) = rho;
  }
  return point(copy, n, lo, output_tokens);
}

LoadPoint open_load(const CopyCurve& copy, double rate, int64_t output_tokens) {
  const double rho = rate * copy.prefill_s;
  LoadPoint over;
  over.requests_per_s = rate;
  over.overloaded = true;
  over.ttft_s = over.tpot_s = std::numeric_limits<double>::infinity();
  over.busy_prefilling = std::min(rho, 1.0);
  if (rho >= 1) return over;
  // Little's law: n = rate x request time at n. The first count where rate x time falls to n or
  // below is the steady state; where time grows as fast as n (compute bound) a second crossing
  // above it would be unstable, and none within the copy means it is overloaded.
  auto excess = [&](double n) {
    return rate * request_s(point(copy, n, rho, output_tokens), output_tokens) - n;
  };
  double lo = 0, hi = 1;
  if (excess(1) > 0) {
    int k = 2;
    while (k <= copy.max_streams && excess(k) > 0)
      ++k;
    if (k > copy.max_streams) return over;
    lo = k - 1;
    hi = k;
  }
  for (int i = 0; i < 80; ++i) {
    const double mid = (lo + hi) / 2;
    (excess(mid) > 0 ? lo : hi) = mid;
  }
  // Below one stream in flight on average, the step is one stream's.
  LoadPoint p = point(copy, hi, rho, output_tokens);
  p.requests_per_s = rate;
  p.output_tokens_per_s = rate * static_cast<double>(std::max<int64_t>(output_tokens, 1));
  return p;
}

LoadPoint disaggregated_load(const CopyCurve& decode, double prefill_s, double handoff_s,
                             int in_flight, int64_t output_tokens) {
  const double n = std::clamp(in_flight, 1, decode.max_streams);
  const double tokens = static_cast<double>(std::max<int64_t>(output_tokens, 1));
  LoadPoint p;
  p.in_flight = n;
  const double step = step_at(decode, n);
  p.tpot_s = step;
  p.decode_tokens_per_s = n / step;
  // The prefill host's utilisation rho = rate x prefill, the rate n / (TTFT + tokens x step),
  // TTFT waiting rho t / (2 (1 - rho)) for the prompts ahead: rho x request time grows with rho.
  auto ttft = [&](double rho) {
    const double others = rho * (n - 1) / n;
    return prefill_s + handoff_s + others * prefill_s / (2 * (1 - others));
  };
  double lo = 0, hi = 1;
  for (int i = 0; i < 80; ++i) {
    const double rho = (lo + hi) / 2;
    (rho * (ttft(rho) + (tokens - 1) * step) < n * prefill_s ? lo : hi) = rho;
  }
  p.busy_prefilling = lo;
  if (lo > 1 - 1e-9) {
    p.overloaded = true;
    return p;
  }
  p.ttft_s = ttft(lo);
  p.requests_per_s = n / (p.ttft_s + (tokens - 1) * step);
  p.output_tokens_per_s = p.requests_per_s * tokens;
  return p;
}

bool LatencyTargets::met_by(const LoadPoint& p) const {
  if (p.overloaded) return false;
  if (ttft_s > 0 && p.ttft_s > ttft_s * (1 + 1e-9)) return false;
  if (tpot_s > 0 && p.tpot_s > tpot_s * (1 + 1e-9)) return false;
  return true;
}

std::string describe_miss(const LatencyTargets& targets, const LoadPoint& p) {
  if (p.overloaded) return "the requests arrive faster than the copy finishes them";
  std::string out;
  auto add = [&](const char* what, double got, const char* flag, double target) {
    if (target <= 0 || got <= target * (1 + 1e-9)) return;
    out += fmt::format("{}a mean {} of {:.1f} ms against {} {:g} ({:.0f} % over)",
                       out.empty() ? "" : " and ", what, got * 1000, flag, target * 1000,
                       (got / target - 1) * 100);
  };
  add("time to first token", p.ttft_s, "--ttft-ms", targets.ttft_s);
  add("time per output token", p.tpot_s, "--tpot-ms", targets.tpot_s);
  return out.empty() ? "every target met" : out;
}

}  // namespace meshplan
