// The expert-parallel search: which group, then each distinct MoE layer's placement on it.
#include <fmt/format.h>

#include "lib/plan/strategy_kind.hpp"

#include <algorithm>
#include <limits>
#include <numeric>
#include <optional>
#include <set>

#include "lib/core/units.hpp"
#include "solvers/parallel/expert_ilp.hpp"
#include "solvers/parallel/expert_parallel.hpp"
#include "solvers/parallel/group_search.hpp"

namespace meshplan {
namespace {

constexpr double kIlpSeconds = 30;  // in all, shared by the distinct layers

// A group that may hold every expert: its bound, and the group to find its path again when it
// is placed (a fleet's groups number in the thousands; few are placed).
struct Candidate {
  double bound = 0;
  std::vector<size_t> group;
};

struct Best {
  CollectivePath path;
  std::vector<ExpertPlacement> placements;
  ExpertCostModel::Evaluation eval;
  double candidate_bound = 0;
  std::vector<size_t> group;  // the candidate's
};

// What a group's plan depends on: its ranks' figures in order and its collective's worst link.
std::vector<double> signature(const PlanInputs& in, const CollectivePath& path) {
  std::vector<double> key = {static_cast<double>(path.kind)};
  if (path.worst) {
    key.push_back(path.worst->latency_s);
    key.push_back(path.worst->bandwidth);
  }
  for (size_t host : path.order) {
    const HostFigures& h = in.hosts[host];
    key.insert(key.end(), {h.bandwidth, h.flops, h.prefill_flops, h.usable_bytes, h.overhead_s});
  }
  return key;
}

Plan build_plan(const ModelDesc& model, const PlanInputs& in, const ExpertCostModel& cost,
                const Best& best, const PlanRequest& request) {
  Plan plan;
  GroupPlanSpec spec;
  spec.strategy = name(StrategyKind::kExpert);
  spec.collective_what = "expert exchanges";
  spec.context = request.context;
  spec.prompt = request.prompt;
  spec.message_bytes = cost.message_bytes();
  spec.collective_per_layer_s = best.path.expert_exchange_s(cost.message_bytes());
  spec.collective_layers = static_cast<int>(cost.moe_layers());
  fill_group_plan(plan, model, in, best.path, best.eval, spec);
  for (auto& rank : plan.ranks) {
    rank.experts.assign(static_cast<size_t>(model.num_layers()), {});
    for (size_t k = 0; k < cost.num_instances(); ++k)
      for (int l : cost.layers_of(k))
        rank.experts[static_cast<size_t>(l)] =
            best.placements[k].experts[static_cast<size_t>(rank.rank)];
  }
  std::vector<int> dense;
  for (const auto& l : model.layers)
    if (!l.moe || l.moe->experts <= 0) dense.push_back(l.index);
  if (!dense.empty()) {
    plan.notes.push_back(
        dense.size() == 1 ? fmt::format("dense layer {} runs on every rank", dense.front())
                          : fmt::format("dense layers {} run on every rank", format_ranges(dense)));
  }
  if (request.expert_load) {
    plan.notes.push_back(
        fmt::format("expert load from {} for {} of {} MoE layers, uniform elsewhere",
                    request.expert_load->source, request.expert_load->layer_distribution.size(),
                    cost.moe_layers()));
  } else {
    plan.notes.emplace_back(
        "expert load uniform (give measured frequencies with --expert-load FILE)");
  }
  size_t extra = 0;
  for (size_t k = 0; k < cost.num_instances(); ++k) {
    size_t copies = 0;
    for (const auto& h : best.placements[k].experts)
      copies += h.size();
    const size_t experts = cost.instance(best.path.order, k).load.size();
    extra += (copies - experts) * cost.layers_of(k).size();
  }
  if (extra > 0) {
    plan.notes.push_back(
        fmt::format("{} extra copies of the busiest experts over the MoE layers", extra));
  }
  return plan;
}

// How many experts of a MoE layer the group holds beside what each rank replicates, and its first
// host that cannot even hold that.
struct ExpertRoom {
  long slots = 0;
  std::optional<size_t> too_small;
  bool enough(const ExpertCostModel& cost) const {
    return !too_small && slots >= cost.max_experts();
  }
};

ExpertRoom expert_room(const ExpertCostModel& cost, const std::vector<size_t>& group) {
  ExpertRoom r;
  for (size_t g : group) {
    const long cap = cost.capacity(g);
    if (cap < 0 && !r.too_small) r.too_small = g;
    r.slots += std::clamp<long>(cap, 0, cost.max_experts());
  }
  return r;
}

// Why the group cannot hold every expert.
std::string why_no_room(const PlanInputs& in, const ExpertCostModel& cost,
                        const std::vector<size_t>& group, const ExpertRoom& r) {
  if (r.too_small)
    return fmt::format(
        "every rank holds the non-expert weights, dense layers, embedding, LM head and the whole "
        "KV cache ({}), more than {}'s {} usable",
        format_gib(cost.replicated_bytes()), in.hosts[*r.too_small].name,
        format_gib(in.hosts[*r.too_small].usable_bytes));
  return fmt::format("{} host{} {} experts per MoE layer beside the replicated {} each; {} needed",
                     group.size(), group.size() == 1 ? " holds" : "s hold", r.slots,
                     format_gib(cost.replicated_bytes()), cost.max_experts());
}

// Places the experts on the groups in order of their bounds until no group left can beat the
// best plan; `evaluated` counts the groups placed.
std::optional<Best> place_on_best_group(const PlanInputs& in, const ExpertCostModel& cost,
                                        const CollectivePaths& paths,
                                        const std::vector<Candidate>& candidates,
                                        size_t& evaluated) {
  std::optional<Best> best;
  std::set<std::vector<double>> seen;
  for (const Candidate& c : candidates) {
    if (best && c.bound >= best->eval.token_latency_s * (1 - 1e-12)) break;
    const CollectivePath path = fastest_path_of(paths, c.group, [&](const CollectivePath& o) {
      return o.expert_exchange_s(cost.message_bytes());
    });
    // Groups of interchangeable hosts over the same collective get the same plan: place once.
    if (!seen.insert(signature(in, path)).second) continue;
    ++evaluated;
    std::vector<ExpertPlacement> placements;
    for (size_t k = 0; k < cost.num_instances(); ++k) {
      auto placed = place_experts(cost.instance(path.order, k));
      if (!placed) break;
      placements.push_back(std::move(*placed));
    }
    if (placements.size() != cost.num_instances()) continue;
    ExpertCostModel::Evaluation ev = cost.evaluate(path, placements);
    if (!best || ev.token_latency_s < best->eval.token_latency_s * (1 - 1e-12)) {
      best = Best{path, std::move(placements), ev, c.bound, c.group};
    }
  }
  return best;
}

// Collects the candidate groups, sorted by bound; returns whether the search was exhaustive.
// Beyond kExactPathHosts candidates, groups grow up to twice kExactPathHosts hosts (and on,
// doubling, until one runs); once a plan is placed, larger groups are taken only while their
// exchange floor is below its time: a larger one could not be placed before it (the placement
// stops at the first bound not below the best time), so fleets of thousands search a few dozen
// sizes.
template <typename Consider>
bool collect_groups(const PlanInputs& in, const ExpertCostModel& cost, const CollectivePaths& paths,
                    const std::vector<std::vector<size_t>>& orders, Consider&& consider,
                    std::vector<Candidate>& candidates) {
  auto by_bound = [&] {
    std::sort(candidates.begin(), candidates.end(),
              [](const Candidate& a, const Candidate& b) { return a.bound < b.bound; });
  };
  const int most = std::min(in.max_hosts, static_cast<int>(in.size()));
  if (in.size() <= kExactPathHosts) {
    const bool exhaustive = for_each_group(in, orders, consider);
    by_bound();
    return exhaustive;
  }
  int done = std::min(most, 2 * static_cast<int>(kExactPathHosts));
  for_each_group(in, orders, consider, 1, done);
  while (done < most) {
    by_bound();
    size_t unused = 0;
    if (std::optional<Best> trial = place_on_best_group(in, cost, paths, candidates, unused)) {
      int last = done;
      while (last < most && cost.exchange_floor(last + 1) < trial->eval.token_latency_s)
        ++last;
      for_each_group(in, orders, consider, done + 1, last);
      break;
    }
    const int next = std::min(most, 2 * done);
    for_each_group(in, orders, consider, done + 1, next);
    done = next;
  }
  by_bound();
  return false;
}

// Improves each distinct MoE layer's placement with the integer program where it is not proven
// best; returns whether every program ran to optimality.
bool refine_with_ilp(const ExpertCostModel& cost, Best& best) {
  bool ilp_optimal = true;
  const double limit = std::max(1.0, kIlpSeconds / static_cast<double>(cost.num_instances()));
  for (size_t k = 0; k < cost.num_instances(); ++k) {
    ExpertPlacement& current = best.placements[k];
    if (current.makespan <= current.lower_bound * (1 + 1e-9)) continue;
    ExpertInstance inst = cost.instance(best.path.order, k);
    auto solved = solve_expert_ilp(inst, &current, limit);
    if (!solved) continue;
    ilp_optimal = ilp_optimal && solved->optimal;
    double bound = std::max(current.lower_bound, solved->placement.lower_bound);
    if (solved->placement.makespan < current.makespan) current = solved->placement;
    current.lower_bound = std::min(bound, current.makespan);
  }
  best.eval = cost.evaluate(best.path, best.placements);
  return ilp_optimal;
}

// The bound over every group: the chosen group's from its placements' bounds, the others' their
// own, and any group's when the search was not exhaustive.
double bound_over_groups(const ExpertCostModel& cost, const Best& best,
                         const std::vector<Candidate>& candidates, bool exhaustive) {
  double chosen = best.eval.token_latency_s;
  for (size_t k = 0; k < cost.num_instances(); ++k) {
    chosen -= static_cast<double>(cost.layers_of(k).size()) *
              (best.placements[k].makespan - best.placements[k].lower_bound);
  }
  chosen = std::max(chosen, best.candidate_bound);
  double bound = chosen;
  for (const Candidate& c : candidates)
    if (c.group != best.group) bound = std::min(bound, c.bound);
  if (!exhaustive) bound = std::min(bound, cost.lower_bound_any_group());
  return bound;
}

}  // namespace

StrategyOutcome plan_expert(const PlanningProblem& problem, const Clock& clock) {
  const ModelDesc& model = problem.model();
  const PlanInputs& in = problem.inputs();
  const CollectivePaths& paths = problem.collective_paths();
  const PlanRequest& request = problem.request();
  const double start = clock.now_seconds();
  StrategyOutcome out;
  if (!model.is_moe()) {
    out.reason = fmt::format("not an MoE model: {} has no routed experts", model.name);
    return out;
  }
  ExpertCostModel cost(model, in, request);

  std::vector<Candidate> candidates;
  GroupRejections rejected;
  auto consider = [&](const std::vector<size_t>& group) {
    std::vector<CollectivePath> options = paths.options(group);
    if (options.empty()) {
      rejected.no_collective(group, paths);
      return;
    }
    const CollectivePath* path = &fastest_path(options, [&](const CollectivePath& o) {
      return o.expert_exchange_s(cost.message_bytes());
    });
    if (const ExpertRoom room = expert_room(cost, group); !room.enough(cost)) {
      // Worded only for the group the message keeps (the one with the most memory).
      if (rejected.keeps_memory(in, group))
        rejected.short_of_memory(in, group, why_no_room(in, cost, group, room));
      return;
    }
    candidates.push_back({cost.lower_bound(*path), group});
  };
  const std::vector<std::vector<size_t>> orders = group_seed_orders(in);
  const bool exhaustive = collect_groups(in, cost, paths, orders, consider, candidates);
  size_t evaluated = 0;
  std::optional<Best> best = place_on_best_group(in, cost, paths, candidates, evaluated);
  if (!best) {
    if (!rejected.no_path().empty() && rejected.memory.empty())
      out.reason = rejected.no_path();
    else
      out.reason = "not enough memory: " +
                   (rejected.memory.empty() ? std::string("no group fits") : rejected.memory);
    return out;
  }

  bool ilp_optimal = true;
  if (request.solver == "ilp") ilp_optimal = refine_with_ilp(cost, *best);
  const double bound = bound_over_groups(cost, *best, candidates, exhaustive);

  Plan plan = build_plan(model, in, cost, *best, request);
  const double T = best->eval.token_latency_s;
  plan.bound = BoundInfo{
      bound, std::max(0.0, 100.0 * (T - bound) / bound),
      "per MoE layer the larger of the slowest rank's non-expert time and the routed load "
      "spread as if divisible (capped by memory), over every group"};
  plan.solver.name = request.solver == "ilp" ? "ilp" : "eplb";
  plan.solver.optimal = T <= bound * (1 + 1e-9);
  plan.solver.solve_ms = (clock.now_seconds() - start) * 1e3;
  plan.solver.note = fmt::format(
      "{} {} groups with an all-reduce path and room for every expert, placed experts on the {} "
      "with the lowest bounds; {}",
      exhaustive ? "searched all" : "searched the fastest and largest", candidates.size(),
      evaluated,
      request.solver == "ilp"
          ? (ilp_optimal ? "GLPK integer program per distinct MoE layer, solved to optimality"
                         : "GLPK integer program per distinct MoE layer, stopped at its time limit")
          : "EPLB-style replication and packing for unequal hosts, then moves and swaps");
  complete_group_plan(plan, problem);
  out.plan = std::move(plan);
  return out;
}

}  // namespace meshplan
