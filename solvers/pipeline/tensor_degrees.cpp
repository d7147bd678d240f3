#include "solvers/pipeline/tensor_degrees.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <deque>
#include <map>
#include <optional>

#include "lib/core/error.hpp"
#include "solvers/pipeline/gpu_stages.hpp"
#include "solvers/problem/batched_decode.hpp"
#include "solvers/problem/planning_problem.hpp"

namespace meshplan {
namespace {

// Hosts that plan alike: the same GPUs, links and figures.
std::string kind_key(const HostFigures& h) {
  std::string key = fmt::format("{}|{}|{}|{}|{}|{}", h.gpus, h.bandwidth, h.flops, h.prefill_flops,
                                h.usable_bytes, h.overhead_s);
  for (const auto& g : h.group_links)
    key += fmt::format("|{}:{}:{}", g.tp, g.link, g.bandwidth);
  return key;
}

std::string describe(const std::vector<std::string>& names, const std::vector<int>& degree,
                     const std::vector<int>& gpus) {
  std::vector<std::string> parts;
  for (size_t k = 0; k < names.size(); ++k)
    parts.push_back(degree[k] == gpus[k] ? fmt::format("{} tp {}", names[k], degree[k])
                                         : fmt::format("{} tp {} x {} stages", names[k], degree[k],
                                                       gpus[k] / degree[k]));
  return fmt::format("{}", fmt::join(parts, ", "));
}

struct Tried {
  std::vector<int> degree;  // per kind
  std::optional<Plan> plan;
  std::string why_not;
  double score = kInfinity;  // seconds per token by the objective; infinite when it does not fit
};

bool fits(const Tried& t) {
  return t.plan && t.why_not.empty();
}

// The multi-GPU hosts grouped into kinds that plan alike, with the degrees each kind may take.
struct HostKinds {
  std::vector<size_t> kind_of;            // per host; SIZE_MAX for a host with no choice
  std::vector<std::vector<int>> options;  // per kind, widest first
  std::vector<std::string> names;         // per kind: its first host (and how many more)
  std::vector<int> gpus, count;
};

HostKinds group_host_kinds(const PlanningProblem& problem) {
  const ModelDesc& model = problem.model();
  const size_t n = problem.size();
  std::map<std::string, size_t> kinds;
  HostKinds out;
  out.kind_of.resize(n);
  for (size_t i = 0; i < n; ++i) {
    const HostFigures& h = problem.host(i);
    std::vector<int> degrees = tensor_degrees(h, model.num_heads, model.num_kv_heads);
    if (degrees.size() <= 1 && h.gpus <= 1) {
      out.kind_of[i] = SIZE_MAX;
      continue;
    }
    auto [it, fresh] = kinds.emplace(kind_key(h), kinds.size());
    out.kind_of[i] = it->second;
    if (fresh) {
      // A degree the model's heads do not divide leaves the host its widest that they do.
      out.options.push_back(degrees);
      out.names.push_back(h.name);
      out.gpus.push_back(h.gpus);
      out.count.push_back(0);
    }
    ++out.count[it->second];
  }
  return out;
}

// A degree asked for (--tensor-degree) is the only one each kind of host tries.
void keep_asked_degree(const PlanningProblem& problem, HostKinds& kinds) {
  if (const int asked = problem.request().tensor_degree; asked > 0) {
    for (size_t k = 0; k < kinds.options.size(); ++k) {
      if (std::find(kinds.options[k].begin(), kinds.options[k].end(), asked) ==
          kinds.options[k].end())
        throw input_error(
            "--tensor-degree {}: host {} can split a layer of {} over {} of its {} GPUs (the "
            "degrees that divide its GPUs and the model's attention and KV heads)",
            asked, kinds.names[k], problem.model().name, fmt::join(kinds.options[k], ", "),
            kinds.gpus[k]);
      kinds.options[k] = {asked};
    }
  }
}

// Plans every combination of the kinds' options when `every`, else climbs one kind at a time.
template <typename Run>
void search_degrees(const std::vector<std::vector<int>>& options, bool every, Run& run) {
  std::vector<int> degree(options.size());
  for (size_t k = 0; k < options.size(); ++k)
    degree[k] = options[k].front();
  if (every) {
    // Odometer over the kinds' options.
    std::vector<size_t> at(options.size(), 0);
    while (true) {
      for (size_t k = 0; k < options.size(); ++k)
        degree[k] = options[k][at[k]];
      run(degree);
      size_t k = 0;
      while (k < at.size() && ++at[k] == options[k].size())
        at[k++] = 0;
      if (k == at.size()) break;
    }
  } else {
    // One kind at a time from the widest degrees, keeping what is faster, until nothing is.
    std::vector<int> best = degree;
    double best_s = run(best).score;
    for (bool better = true; better;) {
      better = false;
      for (size_t k = 0; k < options.size(); ++k)
        for (int d : options[k]) {
          std::vector<int> next = best;
          next[k] = d;
          double s = run(next).score;
          if (s < best_s) {
            best_s = s;
            best = next;
            better = true;
          }
        }
    }
  }
}

// The fastest combination that fits; throws why none did.
const Tried& best_fitting(const std::deque<Tried>& tried, const HostKinds& kinds,
                          const ModelDesc& model, const std::optional<Error>& first_error) {
  const Tried* best = nullptr;
  for (const Tried& t : tried)
    if (fits(t) && (!best || t.score < best->score)) best = &t;
  if (!best) {
    std::string reasons;
    for (const Tried& t : tried)
      if (t.plan)
        reasons +=
            fmt::format("; at {}: {}", describe(kinds.names, t.degree, kinds.gpus), t.why_not);
    if (reasons.empty() && first_error) throw *first_error;
    throw failure("{} does not fit on the GPUs{}", model.name, reasons);
  }
  return *best;
}

// Widens the chosen plan's bound to the least over every combination planned; returns whether
// the plan is still proven the fastest per token.
bool bound_over_combinations(Plan& plan, const std::deque<Tried>& tried, bool every) {
  // The bound covers every combination planned: the least of their bounds (a combination whose
  // GPU groups overflowed still bounds what it could reach).
  bool proven = every && plan.solver.optimal;
  // The proof is of the token time: a plan chosen for throughput has it only when no other
  // combination was faster per token.
  for (const Tried& t : tried)
    if (fits(t) && t.plan->predicted.token_latency_s < plan.predicted.token_latency_s * (1 - 1e-9))
      proven = false;
  if (plan.bound) {
    double bound = plan.bound->token_latency_s;
    for (const Tried& t : tried) {
      if (!t.plan) continue;
      if (t.plan->bound) bound = std::min(bound, t.plan->bound->token_latency_s);
      proven = proven && t.plan->solver.optimal && t.why_not.empty();
    }
    plan.bound->token_latency_s = bound;
    const double s = plan.predicted.token_latency_s;
    plan.bound->gap_percent = s > 0 ? std::max(0.0, 100.0 * (s - bound) / s) : 0;
    plan.bound->method += fmt::format(
        "; the least over the {} tensor-parallel degree combinations planned", tried.size());
    if (!every) plan.bound->method += " (not every combination: the bound holds for those only)";
  }
  return proven;
}

// A note for each of the six best combinations, fastest first.
void note_ranking(Plan& plan, const std::deque<Tried>& tried, const Tried& best,
                  const HostKinds& kinds, bool throughput) {
  const auto& names = kinds.names;
  const auto& gpus = kinds.gpus;
  std::vector<const Tried*> order;
  for (const Tried& t : tried)
    order.push_back(&t);
  std::stable_sort(order.begin(), order.end(),
                   [](const Tried* a, const Tried* b) { return a->score < b->score; });
  for (size_t i = 0; i < order.size() && i < 6; ++i) {
    const Tried& t = *order[i];
    plan.notes.push_back(
        !fits(t) ? fmt::format("{}: {}", describe(names, t.degree, gpus), t.why_not)
        : throughput
            ? fmt::format("{}: {:.1f} tokens/s of the streams together{}",
                          describe(names, t.degree, gpus), 1 / t.score,
                          &t == &best ? " (chosen)" : "")
            : fmt::format("{}: {:.2f} ms per token{}", describe(names, t.degree, gpus),
                          t.plan->predicted.token_latency_s * 1e3, &t == &best ? " (chosen)" : ""));
  }
}

}  // namespace

StrategyOutcome choose_tensor_degrees(const PlanningProblem& problem, const Clock& clock,
                                      const PlanAt& plan_at) {
  const ModelDesc& model = problem.model();
  const size_t n = problem.size();
  HostKinds kinds = group_host_kinds(problem);
  keep_asked_degree(problem, kinds);
  const auto& options = kinds.options;
  size_t combinations = 1;
  for (const auto& o : options)
    combinations = std::min(kMaxCombinations + 1, combinations * o.size());
  if (options.empty()) {  // no host of several GPUs
    if (problem.request().tensor_degree > 0)
      throw input_error("--tensor-degree {}: no candidate host has more than one GPU",
                        problem.request().tensor_degree);
    return plan_at(problem, clock);
  }
  for (size_t k = 0; k < kinds.names.size(); ++k)
    if (kinds.count[k] > 1) kinds.names[k] += fmt::format(" (and {} like it)", kinds.count[k] - 1);

  // Under --objective throughput the streams decoded together decide (groups of GPUs in a
  // pipeline each work on their own micro-batch); else one token's time.
  const PlanRequest& request = problem.request();
  const bool throughput = request.objective == "throughput";
  auto score = [&](const Tried& t) {
    return fits(t) ? objective_seconds(*t.plan, model, throughput, request.concurrency) : kInfinity;
  };
  std::deque<Tried> tried;  // run() hands out references that must outlive later runs
  std::optional<Error> first_error;
  auto run = [&](const std::vector<int>& degree) -> const Tried& {
    for (const Tried& t : tried)
      if (t.degree == degree) return t;
    std::vector<int> tp(n, 1);
    for (size_t i = 0; i < n; ++i)
      tp[i] = kinds.kind_of[i] == SIZE_MAX ? problem.host(i).tp : degree[kinds.kind_of[i]];
    Tried t;
    t.degree = degree;
    try {
      StrategyOutcome o = plan_at(problem.at_tensor_degrees(tp), clock);
      if (o.plan) {
        t.why_not = gpu_stage_problem(*o.plan);
        t.plan = std::move(o.plan);
      } else {
        t.why_not = o.reason;
      }
    } catch (const Error& e) {
      if (e.kind() != ErrorKind::kFailed) throw;
      if (!first_error) first_error = e;
      t.why_not = e.what();
    }
    t.score = score(t);
    tried.push_back(std::move(t));
    return tried.back();
  };
  const bool every = combinations <= kMaxCombinations;
  search_degrees(options, every, run);

  const Tried& best = best_fitting(tried, kinds, model, first_error);
  Plan plan = *best.plan;
  const bool proven = bound_over_combinations(plan, tried, every);
  {
    plan.solver.optimal = proven && plan.bound.has_value();
    plan.solver.note += fmt::format(
        "; tensor-parallel degrees chosen{} over {} of {}{} combinations: {}",
        throughput ? " for the most tokens/s of the streams together" : "", tried.size(),
        every ? "" : "more than ", every ? combinations : kMaxCombinations,
        describe(kinds.names, best.degree, kinds.gpus));
  }
  note_ranking(plan, tried, best, kinds, throughput);
  StrategyOutcome out;
  out.plan = std::move(plan);
  return out;
}

std::vector<int> common_tensor_degrees(const PlanningProblem& problem,
                                       const std::function<bool(int)>& fits) {
  const ModelDesc& model = problem.model();
  std::vector<int> common;
  for (size_t i = 0; i < problem.size(); ++i) {
    const HostFigures& h = problem.host(i);
    std::vector<int> mine =
        h.gpus <= 1 ? std::vector<int>{1} : tensor_degrees(h, model.num_heads, model.num_kv_heads);
    if (i == 0) {
      common = mine;
      continue;
    }
    std::vector<int> kept;
    for (int d : common)
      if (std::find(mine.begin(), mine.end(), d) != mine.end()) kept.push_back(d);
    common = kept;
  }
  std::vector<int> out;
  for (int d : common)
    if (fits(d)) out.push_back(d);
  return out;
}

}  // namespace meshplan
