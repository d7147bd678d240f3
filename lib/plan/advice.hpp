// What `meshplan advise` found: the plan as the cluster stands (the baseline), and each change or
// combination of changes that makes it better, with the new plan's figures, the check findings
// it resolves and what to do with one's hands. Written as a table or as JSON (meshplan.advice/1);
// `dot --advice` reads the proposed cables back.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace meshplan {

inline constexpr const char* kAdviceSchema = "meshplan.advice/1";

// A cable to plug in (or the new end of one moved or replaced).
struct AdviceCable {
  std::string a_host, a_port, a_interface;
  std::string b_host, b_port, b_interface;
  std::string kind;  // "tb5", "tb4", "100gbe", ...
};

// One plan under a set of changes.
struct AdviceOutcome {
  bool feasible = false;
  double score = 0;  // the objective: tokens/s (latency) or aggregate tokens/s (throughput)
  double decode_tokens_per_s = 0;
  double token_latency_s = 0;
  double ttft_s = 0;
  double aggregate_tokens_per_s = 0;  // throughput objective
  std::string strategy, backend, engine, quantization;
  int64_t context = 0;
  std::vector<std::string> hosts;  // in rank order
  std::string note;                // why nothing fits, when infeasible
};

struct AdviceRow {
  std::vector<std::string> kinds;    // per change: "cable", "move-cable", "tb5-cable", ...
  std::vector<std::string> changes;  // per change: one line, "cable mini-2 - mini-4"
  std::vector<std::string> steps;    // what to do, in order, ports named
  std::vector<AdviceCable> cables;   // cables to plug in
  AdviceOutcome outcome;
  double gain = 0;     // outcome.score - baseline.score
  double speedup = 0;  // outcome.score / baseline.score; 0 when the baseline does not fit
  std::vector<std::string> resolves;  // the check findings it resolves
};

struct AdviceReport {
  std::string model;
  std::string objective;  // "latency" or "throughput"
  AdviceOutcome baseline;
  std::vector<std::string> findings;  // the check's findings as the cluster stands
  std::vector<AdviceRow> gains;       // best first
  std::vector<AdviceRow> fixes;       // resolve findings without changing the objective
  // Changes of the request itself (a shorter context): what they would buy, apart from the
  // changes that keep the request, best first.
  std::vector<AdviceRow> request_changes;
  int candidates = 0;  // single changes considered
  int no_gain = 0;     // of which bought nothing and resolved nothing
  int max_changes = 2;
  int plans = 0;  // plans made, the baseline included
  bool exact = true;
  std::string search;  // how the combinations were searched, and what was left out
  double seconds = 0;
};

std::string write_advice_json(const AdviceReport& report);
std::string render_advice(const AdviceReport& report, size_t top);

// The cables of the advice file's gain rows: (row number from 1, cable). Throws an input error
// naming `where` for a file that is not meshplan.advice/1.
std::vector<std::pair<int, AdviceCable>> read_advice_cables(std::string_view text,
                                                            const std::string& where);

}  // namespace meshplan
