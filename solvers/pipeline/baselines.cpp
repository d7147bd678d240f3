#include "solvers/pipeline/baselines.hpp"

#include <fmt/format.h>

#include "lib/core/error.hpp"
#include "lib/core/units.hpp"
#include "solvers/pipeline/proportional_solver.hpp"

namespace meshplan {

BaselineResult proportional_baseline(const PipelineCostModel& cost,
                                     const std::vector<size_t>& order) {
  BaselineResult r;
  r.info.solver = "proportional";
  for (size_t h : order)
    r.info.hosts.push_back(cost.host(h).name);
  PipelineAssignment a;
  try {
    a = proportional_assignment(cost, order);
  } catch (const Error& e) {
    r.info.note = e.what();
    return r;
  }
  PipelineEvaluation e = cost.evaluate(a);
  if (!e.feasible) {
    r.info.note = e.shortfall;
    return r;
  }
  r.info.feasible = true;
  r.info.token_latency_s = e.token_latency_s;
  r.info.decode_tokens_per_s = 1.0 / e.token_latency_s;
  r.assignment = a;
  return r;
}

BaselineResult single_host_baseline(const PipelineCostModel& cost) {
  BaselineResult r;
  r.info.solver = "single-host";
  double need = cost.stage_memory(0, cost.num_layers(), true);
  double largest = 0;
  for (size_t h = 0; h < cost.num_hosts(); ++h) {
    largest = std::max(largest, cost.host(h).usable_bytes);
    if (cost.host(h).usable_bytes < need) continue;  // as evaluate finds, without its message
    PipelineAssignment a{{h}, {0, cost.num_layers()}};
    PipelineEvaluation e = cost.evaluate(a);
    if (!e.feasible || (r.info.feasible && e.token_latency_s >= r.info.token_latency_s)) continue;
    r.info.feasible = true;
    r.info.token_latency_s = e.token_latency_s;
    r.info.decode_tokens_per_s = 1.0 / e.token_latency_s;
    r.info.hosts = {cost.host(h).name};
    r.info.note.clear();
    r.assignment = a;
  }
  if (!r.info.feasible) {
    r.info.note = fmt::format("no host holds the whole model: it needs {}, the largest host has {}",
                              format_gib(need), format_gib(largest));
  }
  return r;
}

void set_speedup(BaselineInfo& info, double plan_latency_s) {
  info.speedup = info.feasible && plan_latency_s > 0 ? info.token_latency_s / plan_latency_s : 0;
}

}  // namespace meshplan
