// The tensor-parallel search: which group and which shares, then the plan.
#include <fmt/format.h>

#include "lib/plan/strategy_kind.hpp"

#include <algorithm>
#include <numeric>

#include "lib/core/units.hpp"
#include "solvers/parallel/group_search.hpp"
#include "solvers/parallel/tensor_parallel.hpp"

namespace meshplan {
namespace {

// A group that may hold the model: its bound, and the group to find its path again when it is
// evaluated (a fleet's groups number in the thousands; few are evaluated).
struct TensorCandidate {
  double bound = 0;
  std::vector<size_t> group;
};

struct TensorBest {
  CollectivePath path;
  TensorShares shares;
  TensorEvaluation eval;
};

std::string divisor_list(const TensorCostModel& cost, const PlanInputs& in) {
  std::vector<std::string> sizes;
  for (size_t p = 1; p <= in.size(); ++p)
    if (cost.divisible(p)) sizes.push_back(std::to_string(p));
  std::string s;
  for (size_t i = 0; i < sizes.size(); ++i)
    s += (i == 0 ? "" : i + 1 == sizes.size() ? " or " : ", ") + sizes[i];
  s += sizes.size() == 1 ? " rank only" : " ranks only";
  if (in.min_hosts > 1 || in.max_hosts < static_cast<int>(in.size())) {
    s += in.min_hosts == in.max_hosts
             ? fmt::format(", and the request asks for {}", in.min_hosts)
             : fmt::format(", and the request asks for {} to {}", in.min_hosts, in.max_hosts);
  }
  return s;
}

Plan build_plan(const ModelDesc& model, const PlanInputs& in, const TensorCostModel& cost,
                const TensorBest& best, int64_t context, int64_t prompt) {
  Plan plan;
  GroupPlanSpec spec;
  spec.strategy = name(StrategyKind::kTensor);
  spec.collective_what = "all-reduces";
  spec.context = context;
  spec.prompt = prompt;
  spec.message_bytes = cost.message_bytes();
  spec.collective_per_layer_s = 2 * best.path.allreduce_s(cost.message_bytes());
  spec.collective_layers = model.num_layers();
  spec.rank_note = [&](size_t r) { return format_percent(best.shares.share[r]) + " share"; };
  fill_group_plan(plan, model, in, best.path, best.eval, spec);
  for (size_t r = 0; r < plan.ranks.size(); ++r)
    plan.ranks[r].share = best.shares.share[r];
  if (best.shares.uneven) {
    plan.notes.push_back(
        "uneven shares: needs engine support for uneven shards (MLX and exo split every tensor "
        "equally)");
  }
  if (cost.latent_kv()) {
    plan.notes.push_back(
        "the KV cache is a latent shared by all heads: every rank holds all of it");
  }
  return plan;
}

// The group's memory for shards against what any split needs: the shards, the KV cache (at
// least its share on every rank) and a copy of the embedding and LM head per rank.
struct GroupRoom {
  double room = 0, need = 0;
  size_t ranks = 0;
  bool enough() const { return room >= need; }
};

GroupRoom group_room(const PlanInputs& in, const TensorCostModel& cost,
                     const std::vector<size_t>& group) {
  GroupRoom r;
  r.ranks = group.size();
  for (size_t g : group)
    r.room += in.hosts[g].usable_bytes - cost.replicated_bytes();
  r.need = cost.sharded_bytes() + cost.kv_total_bytes() * (cost.latent_kv() ? r.ranks : 1);
  return r;
}

// Why the group's memory cannot hold any split.
std::string why_no_room(const GroupRoom& r, const TensorCostModel& cost) {
  const size_t p = r.ranks;
  return fmt::format("{} host{} {} but need {} ({} short)", p, p == 1 ? " holds" : "s hold",
                     format_gib(r.room + p * cost.replicated_bytes()),
                     format_gib(r.need + p * cost.replicated_bytes()), format_gib(r.need - r.room));
}

// Evaluates the shares of the candidates, lowest bound first, until no candidate left can beat
// the best; `evaluated` counts the candidates evaluated, and splits that do not fit go to
// `rejected`.
std::optional<TensorBest> best_split(const PlanInputs& in, const TensorCostModel& cost,
                                     const CollectivePaths& paths, bool allow_uneven,
                                     const std::vector<TensorCandidate>& candidates,
                                     GroupRejections& rejected, size_t& evaluated) {
  auto note_memory = [&](const std::vector<size_t>& group, std::string why) {
    rejected.short_of_memory(in, group, std::move(why));
  };
  std::optional<TensorBest> best;
  for (const TensorCandidate& c : candidates) {
    if (best && c.bound >= best->eval.token_latency_s * (1 - 1e-12)) break;
    ++evaluated;
    const CollectivePath path = fastest_path_of(paths, c.group, [&](const CollectivePath& o) {
      return o.allreduce_s(cost.message_bytes());
    });
    std::vector<TensorShares> options;
    if (cost.divisible(path.ranks())) options.push_back(cost.equal_shares(path.ranks()));
    if (allow_uneven) {
      if (auto s = cost.uneven_shares(path)) options.push_back(*s);
    }
    bool fitted = false;
    for (const TensorShares& s : options) {
      TensorEvaluation e = cost.evaluate(path, s);
      if (!e.feasible) {
        note_memory(path.order, e.shortfall);
        continue;
      }
      fitted = true;
      if (!best || e.token_latency_s < best->eval.token_latency_s * (1 - 1e-12))
        best = TensorBest{path, s, e};
    }
    if (!fitted && options.empty()) {
      note_memory(path.order, "no split of whole heads fits every rank's memory");
    }
  }
  return best;
}

}  // namespace

StrategyOutcome plan_tensor(const PlanningProblem& problem, const Clock& clock) {
  const ModelDesc& model = problem.model();
  const PlanInputs& in = problem.inputs();
  const CollectivePaths& paths = problem.collective_paths();
  const PlanRequest& request = problem.request();
  const double start = clock.now_seconds();
  TensorCostModel cost(model, in, request.context, request.prompt);

  std::vector<TensorCandidate> candidates;
  GroupRejections rejected;
  bool any_path = false, any_divisible = false, unsized = false;
  // Only sizes that split the heads (evenly, or unevenly when allowed) can hold a plan; other
  // groups matter only to say why none runs, so their all-reduce paths are looked for only then
  // (thousands of hosts give thousands of such groups).
  auto sized = [&](size_t p) {
    return cost.divisible(p) || (request.allow_uneven && p <= static_cast<size_t>(cost.heads()));
  };
  const std::vector<std::vector<size_t>> seeds = group_seed_orders(in);
  const bool exhaustive = for_each_group(
      in, seeds,
      [&](const std::vector<size_t>& group) {
        std::vector<CollectivePath> options = paths.options(group);
        if (options.empty()) {
          rejected.no_collective(group, paths);
          return;
        }
        any_path = true;
        const CollectivePath* path = &fastest_path(
            options, [&](const CollectivePath& o) { return o.allreduce_s(cost.message_bytes()); });
        any_divisible = true;
        const GroupRoom room = group_room(in, cost, group);
        if (!room.enough()) {
          // Worded only for the group the message keeps (the one with the most memory).
          if (rejected.keeps_memory(in, group))
            rejected.short_of_memory(in, group, why_no_room(room, cost));
          return;
        }
        candidates.push_back({cost.lower_bound(*path), group});
      },
      1, INT_MAX, sized);
  // Groups of other sizes were left out; whether there were any matters for the message.
  for (int p = std::max(in.min_hosts, 1); p <= std::min(in.max_hosts, static_cast<int>(in.size()));
       ++p)
    unsized = unsized || !sized(static_cast<size_t>(p));
  if (candidates.empty() && !any_path && unsized)
    for_each_group(in, seeds, [&](const std::vector<size_t>& group) {
      if (any_path || sized(group.size())) return;
      if (paths.options(group).empty())
        rejected.no_collective(group, paths);
      else
        any_path = true;
    });

  std::sort(candidates.begin(), candidates.end(),
            [](const TensorCandidate& a, const TensorCandidate& b) { return a.bound < b.bound; });
  size_t evaluated = 0;
  const std::optional<TensorBest> best =
      best_split(in, cost, paths, request.allow_uneven, candidates, rejected, evaluated);

  StrategyOutcome out;
  if (!best) {
    if (!any_path) {
      out.reason = rejected.no_path().empty() ? "no all-reduce path" : rejected.no_path();
    } else if (!any_divisible) {
      out.reason = fmt::format(
          "head count not divisible: {} attention heads and {} KV heads split evenly over {}; "
          "--allow-uneven plans other group sizes (needs engine support for uneven shards)",
          model.num_heads, model.num_kv_heads, divisor_list(cost, in));
    } else {
      out.reason = "not enough memory: " + rejected.memory;
    }
    return out;
  }
  Plan plan = build_plan(model, in, cost, *best, request.context, request.prompt);
  double bound = candidates.front().bound;
  if (!exhaustive) {
    bound = std::min(bound, cost.lower_bound_any_group());
  }
  plan.bound =
      BoundInfo{bound, std::max(0.0, 100.0 * (best->eval.token_latency_s - bound) / bound),
                exhaustive ? "best group with shares relaxed to real numbers and no memory limit"
                           : "all hosts sharing every layer, no memory limit"};
  plan.solver.name = "tensor-groups";
  plan.solver.optimal = exhaustive && !request.allow_uneven;
  plan.solver.solve_ms = (clock.now_seconds() - start) * 1e3;
  plan.solver.note = fmt::format(
      "{} {} groups with an all-reduce path, evaluated the {} with the lowest bounds; {}",
      exhaustive ? "searched all" : "searched the fastest and largest", candidates.size(),
      evaluated,
      request.allow_uneven ? "uneven shares by greedy whole-head placement and moves"
                           : "equal shares");
  complete_group_plan(plan, problem);
  out.plan = std::move(plan);
  return out;
}

}  // namespace meshplan
