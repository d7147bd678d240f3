// The plan request's flags as a user writes them (`plan`, `advise`, `profile`): token counts
// ("32k"), headroom ("10%", "0.1", "8GiB"), layer pins ("host=0-20"), and the rules that join
// them (a latency target implies the throughput objective, --strategy routed plans for it).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "solvers/problem/plan_request.hpp"

namespace meshplan {

struct RequestFlags {
  std::string context = "4096";
  std::string prompt = "512";
  std::string headroom;            // "" : none
  std::vector<std::string> hosts;  // --hosts, ranges expanded
  std::vector<std::string> pins;   // --pin, as written
};

// A token count given to `flag` ("32768", "32k", "128K"); an input error naming the flag otherwise.
int64_t token_count(const std::string& flag, const std::string& text);
// "m3-ultra-1=0-20" -> host m3-ultra-1, layers [0, 21).
LayerPin parse_pin(const std::string& text);
// "10%", "0.1" (a fraction of each host's usable memory) or "8GiB" (bytes per host).
void parse_headroom(const std::string& text, PlanRequest& request);

// The serving flags as written: the load and its latency targets.
struct ServingFlags {
  std::string output_tokens;  // "" : not given
  double rate = 0;            // --rate, requests a second
  double ttft_ms = 0;         // --ttft-ms
  double tpot_ms = 0;         // --tpot-ms
  double min_stream_tps = 0;  // --min-stream-tps, another spelling of --tpot-ms
};

// The serving flags into the request (before a workload is read): --min-stream-tps X is
// --tpot-ms 1000/X, and a target or a rate implies the throughput objective.
void apply_serving_flags(const ServingFlags& flags, PlanRequest& request);
// The rest: context, prompt, headroom, hosts, pins, and the objective --strategy routed needs.
void apply_request_flags(const RequestFlags& flags, PlanRequest& request);

}  // namespace meshplan
