#include "solvers/parallel/hybrid_plan.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <bit>
#include <map>
#include <optional>
#include <set>

#include "lib/core/error.hpp"
#include "lib/core/units.hpp"
#include "lib/plan/strategy_kind.hpp"
#include "solvers/parallel/tensor_parallel.hpp"
#include "solvers/pipeline/pipeline_plan.hpp"
#include "solvers/problem/allreduce_paths.hpp"
#include "solvers/problem/batched_decode.hpp"
#include "solvers/problem/left_out.hpp"

namespace meshplan {
namespace {

// Hosts that all-reduce together, in their collective's rank order.
struct Group {
  std::vector<size_t> members;  // candidate indices
  CollectivePath path;
};

// A group planned as one host: every host holds an equal share of each layer, so the group runs
// at its slowest host's pace with all of their bandwidth; each holds the embedding and head whole
// (`replicated` bytes) and computes the head at its own pace. Its two all-reduces per layer take
// the in-host form: a JACCL mesh pays 2 latencies per all-reduce, a ring 2(p-1) steps.
HostFigures group_figures(const PlanningProblem& problem, const Group& g, double replicated) {
  const double d = static_cast<double>(g.members.size());
  HostFigures f = problem.host(g.members.front());
  std::vector<std::string> names;
  for (size_t m : g.members) {
    const HostFigures& h = problem.host(m);
    names.push_back(h.name);
    f.bandwidth = std::min(f.bandwidth, h.bandwidth);
    f.flops = std::min(f.flops, h.flops);
    f.prefill_flops = std::min(f.prefill_flops, h.prefill_flops);
    f.spec_bandwidth = std::min(f.spec_bandwidth, h.spec_bandwidth);
    f.spec_flops = std::min(f.spec_flops, h.spec_flops);
    f.usable_bytes = std::min(f.usable_bytes, h.usable_bytes);
    f.overhead_s = std::max(f.overhead_s, h.overhead_s);
  }
  const double least = f.usable_bytes;
  f.name = fmt::format("{}", fmt::join(names, "+"));
  f.head_bandwidth = f.bandwidth;
  f.head_flops = f.flops;
  f.bandwidth *= d;
  f.flops *= d;
  f.prefill_flops *= d;
  f.spec_bandwidth *= d;
  f.spec_flops *= d;
  f.usable_bytes = std::max(0.0, d * least - (d - 1) * replicated);
  f.usable_rule = fmt::format(
      "{} hosts x the least usable of them ({}), less {} more copies of "
      "the embedding and head",
      g.members.size(), format_gib(least), g.members.size() - 1);
  f.default_wired_bytes = 0;
  f.gpus = 1;
  f.tp = static_cast<int>(g.members.size());
  f.gpu_stages = 1;
  f.group_links.clear();
  const LinkFigures& w = *g.path.worst;
  f.gpu_link = fmt::format("{} over {}", collective_name(g.path.kind), w.name);
  const bool mesh = g.path.kind == CollectiveKind::kJacclMesh;
  // As a GPU group's all-reduce, lambda + 2(d-1) steps: a mesh's one exchange has a step of half
  // a peer; a ring's 2(d-1) steps each pay the link's latency.
  f.gpu_link_latency_s = mesh ? w.latency_s : 0;
  f.gpu_link_step_s = mesh ? g.path.peer_s / 2 : w.latency_s;
  f.gpu_link_bandwidth = w.bandwidth;
  return f;
}

// One way of grouping the candidates: groups of several hosts, and the hosts left single.
struct Grouping {
  std::vector<Group> groups;
  std::vector<size_t> singles;
};

std::string describe(const PlanningProblem& problem, const Grouping& g) {
  std::vector<std::string> parts;
  for (const Group& x : g.groups) {
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

// Every grouping of `eligible` with at least one group, larger groups first, up to the cap.
class Groupings {
 public:
  Groupings(const PlanningProblem& problem, const TensorCostModel& cost,
            const std::vector<size_t>& eligible)
      : problem_(problem), cost_(cost), eligible_(eligible) {}

  std::vector<Grouping> all(bool& capped) {
    std::vector<Group> chosen;
    walk((1u << eligible_.size()) - 1, chosen);
    capped = capped_;
    return std::move(out_);
  }

 private:
  // The fastest way the hosts of `mask` all-reduce, if any.
  const std::optional<Group>& group(uint32_t mask) {
    auto it = memo_.find(mask);
    if (it != memo_.end()) return it->second;
    std::optional<Group> g;
    const size_t d = static_cast<size_t>(std::popcount(mask));
    if (d >= 2 && d <= kJacclMaxRanks && cost_.divisible(d)) {
      std::vector<size_t> members;
      for (size_t i = 0; i < eligible_.size(); ++i)
        if (mask >> i & 1) members.push_back(eligible_[i]);
      const double bytes = cost_.message_bytes();
      for (CollectivePath& p : problem_.collective_paths().options(members))
        if (p.worst && (!g || p.allreduce_s(bytes) < g->path.allreduce_s(bytes)))
          g = Group{p.order, p};
    }
    return memo_.emplace(mask, std::move(g)).first->second;
  }

  void walk(uint32_t left, std::vector<Group>& chosen) {
    if (out_.size() >= kMaxGroupings) {
      capped_ = true;
      return;
    }
    if (left == 0) {
      if (chosen.empty()) return;  // a plain pipeline: the pipeline strategy's
      Grouping g{chosen, {}};
      for (size_t i = 0; i < eligible_.size(); ++i) {
        bool grouped = false;
        for (const Group& x : chosen)
          grouped = grouped || std::count(x.members.begin(), x.members.end(), eligible_[i]);
        if (!grouped) g.singles.push_back(eligible_[i]);
      }
      out_.push_back(std::move(g));
      return;
    }
    const uint32_t first = left & -left;
    const uint32_t rest = left & ~first;
    // Groups holding the lowest host left, the most promising first (so that a capped search
    // keeps the likely ones); then that host alone.
    std::vector<std::pair<double, uint32_t>> options;
    for (uint32_t sub = rest; sub != 0; sub = (sub - 1) & rest)
      if (const auto& g = group(sub | first)) options.emplace_back(promise(*g), sub | first);
    std::sort(options.begin(), options.end());
    for (const auto& [t, mask] : options) {
      chosen.push_back(*group(mask));
      walk(left & ~mask, chosen);
      chosen.pop_back();
    }
    walk(rest, chosen);
  }

  // What a token would take if the group held every layer: the weights over its hosts' combined
  // pace, plus two all-reduces per layer.
  double promise(const Group& g) const {
    double slowest = kInfinity;
    for (size_t m : g.members)
      slowest = std::min(slowest, problem_.host(m).bandwidth);
    const double d = static_cast<double>(g.members.size());
    return cost_.sharded_bytes() / (d * slowest) +
           2 * cost_.num_layers() * g.path.allreduce_s(cost_.message_bytes());
  }

  const PlanningProblem& problem_;
  const TensorCostModel& cost_;
  const std::vector<size_t>& eligible_;
  std::map<uint32_t, std::optional<Group>> memo_;
  std::vector<Grouping> out_;
  bool capped_ = false;
};

// The plan over the groups as ranks of the real hosts: each group's layers on every one of its
// hosts, with its share of the layers' bytes and KV (the embedding and head whole). `by_name`:
// the groups by their name in the merged plan.
Plan expand(const Plan& merged, const std::map<std::string, const Group*>& by_name,
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
    const Group* g = it->second;
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

}  // namespace

StrategyOutcome plan_hybrid(const PlanningProblem& problem, const Clock& clock) {
  const ModelDesc& model = problem.model();
  const PlanRequest& request = problem.request();
  StrategyOutcome out;
  TensorCostModel cost(model, problem.inputs(), request.context, request.prompt);
  if (request.min_hosts > 0 || request.max_hosts > 0) {
    out.reason =
        "a hybrid plan counts hosts by group; it takes --hosts, not --min-hosts or "
        "--max-hosts";
    return out;
  }
  // Hosts of several GPUs already split their layers inside (their own tensor-parallel degree).
  std::vector<size_t> eligible;
  for (size_t i = 0; i < problem.size(); ++i)
    if (problem.host(i).gpus <= 1 && problem.host(i).usable_bytes > 0) eligible.push_back(i);
  if (eligible.size() < 2) {
    out.reason = "a hybrid plan needs two hosts of one device each that can form a group";
    return out;
  }
  if (eligible.size() > kMaxHybridHosts) {
    out.reason =
        fmt::format("hybrid plans group at most {} hosts of one device; the cluster has {}",
                    kMaxHybridHosts, eligible.size());
    return out;
  }
  bool capped = false;
  Groupings walker(problem, cost, eligible);
  std::vector<Grouping> groupings = walker.all(capped);
  if (groupings.empty()) {
    out.reason = fmt::format(
        "no group of hosts can split {}'s layers: a group needs a collective under backend {} "
        "(an RDMA mesh or a ring) and a size that divides the {} attention heads and {} KV heads",
        model.name, request.backend, model.num_heads, model.num_kv_heads);
    return out;
  }

  const double replicated = cost.replicated_bytes();
  const double start = clock.now_seconds();
  struct Tried {
    const Grouping* grouping;
    std::optional<Plan> plan;
    std::string why_not;
  };
  std::vector<Tried> tried;
  std::optional<double> bound;
  bool proven = !capped;
  for (const Grouping& g : groupings) {
    std::vector<std::vector<size_t>> blocks;
    std::vector<HostFigures> figures;
    for (const Group& x : g.groups) {
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
    std::map<std::string, const Group*> by_name;
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
          t.why_not =
              "its fastest pipeline is one group alone: the tensor plan (--strategy tensor)";
        }
      } else {
        t.why_not = o.reason;
      }
    } catch (const Error& e) {
      if (e.kind() != ErrorKind::kFailed) throw;
      t.why_not = e.what();
    }
    tried.push_back(std::move(t));
  }
  // Under --objective throughput the streams decoded together decide (each group a stage with
  // its own micro-batch), else one token's time.
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
  // Baselines: a pipeline over the same hosts, split by memory and on the fastest one alone.
  std::vector<size_t> members;
  for (const RankPlan& r : plan.ranks)
    for (size_t i = 0; i < problem.size(); ++i)
      if (problem.host(i).name == r.host) members.push_back(i);
  plan.baselines = pipeline_baselines(problem, members, latency);
  plan.notes.erase(std::remove_if(plan.notes.begin(), plan.notes.end(),
                                  [](const std::string& n) { return n.starts_with("left out: "); }),
                   plan.notes.end());
  record_left_out(plan, problem, "");
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
  plan.notes.push_back(
      "to run a hybrid plan: `emit vllm` (-tp the group size, -pp the stages) where every stage is "
      "a group of one size; MLX has no group per stage yet (Group.split, ml-explore/mlx#3205)");
  out.plan = std::move(plan);
  return out;
}

}  // namespace meshplan
