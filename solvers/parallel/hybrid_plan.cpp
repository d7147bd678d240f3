#include "solvers/parallel/hybrid_plan.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "lib/core/error.hpp"
#include "lib/plan/strategy_kind.hpp"
#include "solvers/parallel/host_groupings.hpp"
#include "solvers/parallel/tensor_parallel.hpp"
#include "solvers/pipeline/pipeline_plan.hpp"
#include "solvers/problem/allreduce_paths.hpp"
#include "solvers/problem/batched_decode.hpp"
#include "solvers/problem/left_out.hpp"

namespace meshplan {
namespace {

std::string describe(const PlanningProblem& problem, const HostGrouping& g) {
  std::vector<std::string> parts;
  for (const HostGroup& x : g.groups) {
    std::vector<std::string> names;
    for (size_t m : x.members)
      names.push_back(problem.host(m).name);
    parts.push_back(fmt::format("({})", fmt::join(names, " + ")));
  }
  return fmt::format("{}", fmt::join(parts, ", "));
}

// The groups a plan uses, as "(a + b), (c + d)".
std::string groups_used(const Plan& plan) {
  std::vector<std::string> used;
  for (const RankPlan& r : plan.ranks)
    if (!r.tp_group.empty() && r.host == r.tp_group.front())
      used.push_back(fmt::format("({})", fmt::join(r.tp_group, " + ")));
  return fmt::format("{}", fmt::join(used, ", "));
}

// The plan over the groups as ranks of the real hosts: each group's layers on every one of its
// hosts, with its share of the layers' bytes and KV (the embedding and head whole). `by_name`:
// the groups by their name in the merged plan.
Plan expand(const Plan& merged, const std::map<std::string, const HostGroup*>& by_name,
            const PlanningProblem& problem, double replicated) {
  Plan plan = merged;
  plan.strategy = name(StrategyKind::kHybrid);
  plan.ranks.clear();
  for (const RankPlan& r : merged.ranks) {
    auto it = by_name.find(r.host);
    if (it == by_name.end()) {
      RankPlan x = r;
      x.rank = static_cast<int>(plan.ranks.size());
      plan.ranks.push_back(std::move(x));
      continue;
    }
    const HostGroup* g = it->second;
    const double d = static_cast<double>(g->members.size());
    std::vector<std::string> names;
    for (size_t m : g->members)
      names.push_back(problem.host(m).name);
    const double head = r.holds_head ? replicated : 0;
    for (size_t k = 0; k < g->members.size(); ++k) {
      const HostFigures& h = problem.host(g->members[k]);
      RankPlan x = r;
      x.rank = static_cast<int>(plan.ranks.size());
      x.host = h.name;
      x.share = 1 / d;
      x.tp_group = names;
      x.weight_bytes = (r.weight_bytes - head) / d + head;
      x.kv_bytes = r.kv_bytes / d;
      x.total_bytes = r.total_bytes - r.weight_bytes - r.kv_bytes + x.weight_bytes + x.kv_bytes;
      x.usable_bytes = h.usable_bytes;
      x.bandwidth = h.bandwidth;
      x.flops = h.flops;
      if (k + 1 < g->members.size()) x.hop_to_next.reset();
      plan.ranks.push_back(std::move(x));
    }
  }
  return plan;
}

// Whether every rank of the plan is in one tensor-parallel group: a single stage of all its hosts.
bool one_group(const Plan& plan) {
  if (plan.ranks.empty() || plan.ranks.front().tp_group.empty()) return false;
  for (const RankPlan& r : plan.ranks)
    if (r.tp_group != plan.ranks.front().tp_group) return false;
  return plan.ranks.front().tp_group.size() == plan.ranks.size();
}

// Why the cluster takes no hybrid plan; empty when it may.
std::string hybrid_refusal(const PlanRequest& request, const std::vector<size_t>& eligible) {
  if (request.min_hosts > 0 || request.max_hosts > 0)
    return "a hybrid plan counts hosts by group; it takes --hosts, not --min-hosts or "
           "--max-hosts";
  if (eligible.size() < 2)
    return "a hybrid plan needs two hosts of one device each that can form a group";
  if (eligible.size() > kMaxHybridHosts)
    return fmt::format("hybrid plans group at most {} hosts of one device; the cluster has {}",
                       kMaxHybridHosts, eligible.size());
  return "";
}

struct Tried {
  const HostGrouping* grouping;
  std::optional<Plan> plan;
  std::string why_not;
};

// The pipeline over one grouping's groups and single hosts, as a plan of the real hosts. Folds
// the pipeline's bound into `bound` and its proof into `proven`.
Tried plan_grouping(const PlanningProblem& problem, const Clock& clock, const HostGrouping& g,
                    double replicated, std::optional<double>& bound, bool& proven) {
  std::vector<std::vector<size_t>> blocks;
  std::vector<HostFigures> figures;
  for (const HostGroup& x : g.groups) {
    blocks.push_back(x.members);
    figures.push_back(group_figures(problem, x, replicated));
  }
  for (size_t i = 0; i < problem.size(); ++i)
    if (problem.host(i).gpus > 1 || problem.host(i).usable_bytes <= 0 ||
        std::count(g.singles.begin(), g.singles.end(), i)) {
      blocks.push_back({i});
      figures.push_back(problem.host(i));
    }
  Tried t{&g, std::nullopt, ""};
  std::map<std::string, const HostGroup*> by_name;
  for (size_t k = 0; k < g.groups.size(); ++k)
    by_name[figures[k].name] = &g.groups[k];
  try {
    PlanningProblem merged = problem.grouped(blocks, std::move(figures));
    StrategyOutcome o = plan_pipeline(merged, clock);
    if (o.plan) {
      if (o.plan->bound)
        bound = std::min(bound.value_or(kInfinity), o.plan->bound->token_latency_s);
      proven = proven && o.plan->solver.optimal;
      const bool uses_group =
          std::any_of(o.plan->ranks.begin(), o.plan->ranks.end(),
                      [&](const RankPlan& r) { return by_name.count(r.host) > 0; });
      if (uses_group)
        t.plan = expand(*o.plan, by_name, problem, replicated);
      else
        t.why_not = "its fastest pipeline uses none of the groups";
      // One group and nothing else is no pipeline of groups: it is the tensor plan over those
      // hosts, which the tensor strategy plans (and engines run) as such.
      if (t.plan && one_group(*t.plan)) {
        t.plan.reset();
        t.why_not = "its fastest pipeline is one group alone: the tensor plan (--strategy tensor)";
      }
    } else {
      t.why_not = o.reason;
    }
  } catch (const Error& e) {
    if (e.kind() != ErrorKind::kFailed) throw;
    t.why_not = e.what();
  }
  return t;
}

// The plan that does best by the objective: under --objective throughput the streams decoded
// together decide (each group a stage with its own micro-batch), else one token's time.
const Tried* best_by_objective(const std::vector<Tried>& tried, const ModelDesc& model,
                               const PlanRequest& request) {
  const bool throughput = request.objective == "throughput";
  const Tried* best = nullptr;
  double best_score = kInfinity;
  for (const Tried& t : tried) {
    if (!t.plan) continue;
    const double x = objective_seconds(*t.plan, model, throughput, request.concurrency);
    if (!best || x < best_score * (1 - 1e-9)) {
      best = &t;
      best_score = x;
    }
  }
  return best;
}

// Baselines: a pipeline over the same hosts, split by memory and on the fastest one alone; and
// the hosts left out, said anew for the real hosts.
void add_baselines_and_left_out(Plan& plan, const PlanningProblem& problem, double latency) {
  std::vector<size_t> members;
  for (const RankPlan& r : plan.ranks)
    for (size_t i = 0; i < problem.size(); ++i)
      if (problem.host(i).name == r.host) members.push_back(i);
  plan.baselines = pipeline_baselines(problem, members, latency);
  plan.notes.erase(std::remove_if(plan.notes.begin(), plan.notes.end(),
                                  [](const std::string& n) { return n.starts_with("left out: "); }),
                   plan.notes.end());
  record_left_out(plan, problem, "");
}

// A note for each grouping planned, fastest per token first, up to six that read differently.
void note_groupings(Plan& plan, const std::vector<Tried>& tried, const Tried* best,
                    const PlanningProblem& problem) {
  std::vector<const Tried*> order;
  for (const Tried& t : tried)
    order.push_back(&t);
  std::stable_sort(order.begin(), order.end(), [](const Tried* a, const Tried* b) {
    const double x = a->plan ? a->plan->predicted.token_latency_s : kInfinity;
    const double y = b->plan ? b->plan->predicted.token_latency_s : kInfinity;
    return x < y;
  });
  std::set<std::string> said;  // groupings whose plans leave the same groups unused read alike
  for (size_t i = 0; i < order.size() && said.size() < 6; ++i) {
    const Tried& t = *order[i];
    std::string note =
        t.plan ? fmt::format("groups {}: {:.2f} ms per token{}", groups_used(*t.plan),
                             t.plan->predicted.token_latency_s * 1e3, &t == best ? " (chosen)" : "")
               : fmt::format("groups {}: {}", describe(problem, *t.grouping), t.why_not);
    if (said.insert(note).second) plan.notes.push_back(std::move(note));
  }
}

}  // namespace

StrategyOutcome plan_hybrid(const PlanningProblem& problem, const Clock& clock) {
  const ModelDesc& model = problem.model();
  const PlanRequest& request = problem.request();
  StrategyOutcome out;
  TensorCostModel cost(model, problem.inputs(), request.context, request.prompt);
  // Hosts of several GPUs already split their layers inside (their own tensor-parallel degree).
  std::vector<size_t> eligible;
  for (size_t i = 0; i < problem.size(); ++i)
    if (problem.host(i).gpus <= 1 && problem.host(i).usable_bytes > 0) eligible.push_back(i);
  out.reason = hybrid_refusal(request, eligible);
  if (!out.reason.empty()) return out;
  bool capped = false;
  std::vector<HostGrouping> groupings =
      host_groupings(problem, cost, eligible, kMaxGroupings, capped);
  if (groupings.empty()) {
    out.reason = fmt::format(
        "no group of hosts can split {}'s layers: a group needs a collective under backend {} "
        "(an RDMA mesh or a ring) and a size that divides the {} attention heads and {} KV heads",
        model.name, request.backend, model.num_heads, model.num_kv_heads);
    return out;
  }

  const double replicated = cost.replicated_bytes();
  const double start = clock.now_seconds();
  std::vector<Tried> tried;
  std::optional<double> bound;
  bool proven = !capped;
  for (const HostGrouping& g : groupings)
    tried.push_back(plan_grouping(problem, clock, g, replicated, bound, proven));
  const Tried* best = best_by_objective(tried, model, request);
  if (!best) {
    const bool all_one = std::all_of(tried.begin(), tried.end(), [](const Tried& t) {
      return t.why_not.starts_with("its fastest pipeline is one group alone");
    });
    out.reason = all_one ? "every grouping's fastest pipeline is one group alone: the tensor plan "
                           "over its hosts (--strategy tensor)"
                         : fmt::format("no grouping of the hosts holds {}: {}", model.name,
                                       tried.front().why_not);
    return out;
  }

  Plan plan = *best->plan;
  const double latency = plan.predicted.token_latency_s;
  if (plan.bound && bound) {
    plan.bound->token_latency_s = std::min(*bound, latency);
    plan.bound->gap_percent = latency > 0 ? std::max(0.0, 100.0 * (latency - *bound) / latency) : 0;
    plan.bound->method += fmt::format("; the least over the {} groupings of hosts planned{}",
                                      tried.size(), capped ? " (not every grouping)" : "");
  }
  // The proof is of the token time: a plan chosen for throughput has it only when no other
  // grouping was faster per token.
  for (const Tried& t : tried)
    if (t.plan && t.plan->predicted.token_latency_s < latency * (1 - 1e-9)) proven = false;
  plan.solver.optimal = proven && plan.bound.has_value();
  plan.solver.solve_ms = (clock.now_seconds() - start) * 1e3;
  plan.solver.note +=
      fmt::format("; groupings of hosts planned: {}{}, the plan's groups {}", tried.size(),
                  capped ? fmt::format(" (capped at {})", kMaxGroupings) : "", groups_used(plan));
  add_baselines_and_left_out(plan, problem, latency);
  note_groupings(plan, tried, best, problem);
  plan.notes.push_back(
      "to run a hybrid plan: `emit vllm` (-tp the group size, -pp the stages) where every stage is "
      "a group of one size; MLX has no group per stage yet (Group.split, ml-explore/mlx#3205)");
  out.plan = std::move(plan);
  return out;
}

}  // namespace meshplan
