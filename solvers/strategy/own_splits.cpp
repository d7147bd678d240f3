#include "solvers/strategy/own_splits.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "lib/core/engine_rules.hpp"
#include "lib/plan/strategy_kind.hpp"
#include "solvers/pipeline/tensor_degrees.hpp"

namespace meshplan {

const Outcome* OwnSplits::of(const Engine& e) {
  if (e.kind == EngineKind::kVllm) {
    const std::string key(name(EngineKind::kVllm));
    auto it = splits_.find(key);
    if (it == splits_.end()) it = splits_.emplace(key, vllm_pipeline()).first;
    return it->second.plan ? &it->second : nullptr;
  }
  std::string solver(engine_pipeline_solver(e));
  // Pins, other solvers, and host limits for a split over every host, ask for ranges the
  // engine cannot take: those plans keep the planned split.
  if (request_.solver != "optimal" || !request_.pins.empty()) solver.clear();
  if (solver == "proportional" && (request_.min_hosts > 0 || request_.max_hosts > 0))
    solver.clear();
  const double hop_s = catalog_.engine_hop_s(e.name);
  if (solver.empty() && hop_s == 0) return nullptr;
  const std::string key = fmt::format("{}/{}", solver, hop_s);
  auto it = splits_.find(key);
  if (it == splits_.end()) {
    std::vector<PlanningProblem> split;
    for (const PlanningProblem& p : problems_)
      split.push_back(p.for_engine(solver.empty() ? request_.solver : solver, hop_s));
    it = splits_.emplace(key, plan_pipeline_(split)).first;
    Outcome& o = it->second;
    if (hop_s > 0 && o.plan && plan_hosts(*o.plan).size() > 1)
      o.plan->notes.push_back(fmt::format(
          "{} adds {:.1f} ms to every hop between hosts (its round trips per remote stage)",
          e.title, hop_s * 1e3));
  }
  return &it->second;
}

// vLLM runs a pipeline at one tensor-parallel degree on every stage (-tp T -pp P). When the
// planned pipeline mixes degrees (8 GPUs on one node, 4 on another), the pipeline at each degree
// every host takes and vLLM's heads rule allows, the best kept; no plan when the planned one runs.
Outcome OwnSplits::vllm_pipeline() const {
  const std::vector<Outcome>& outcomes = outcomes_;
  const std::vector<PlanningProblem>& problems = problems_;
  const PlanRequest& request = request_;
  const Scorer& scorer = scorer_;
  Outcome best{std::string(name(StrategyKind::kPipeline)), std::nullopt, "", {}};
  const Engine& vllm = engine(EngineKind::kVllm);
  auto planned = std::find_if(outcomes.begin(), outcomes.end(), [](const Outcome& o) {
    return is_strategy(o.strategy, StrategyKind::kPipeline);
  });
  if (planned == outcomes.end() || !planned->plan || request.tensor_degree > 0 ||
      !request.pins.empty() || problems.empty() || layout_refusal(vllm, *planned->plan).empty())
    return best;
  const ModelDesc& model = problems.front().model();
  for (int tp : common_tensor_degrees(problems.front(), [&](int d) {
         return vllm_tensor_fits(d, model.num_heads, model.num_kv_heads);
       })) {
    std::vector<PlanningProblem> at;
    for (const PlanningProblem& p : problems)
      at.push_back(p.at_one_tensor_degree(tp));
    Outcome o = plan_pipeline_(at);
    if (o.plan && layout_refusal(vllm, *o.plan).empty() &&
        (!best.plan || scorer.of(o) > scorer.of(best) * (1 + 1e-9))) {
      scorer.cache.clear();  // scores are cached by address; `best` is about to be replaced
      best = std::move(o);
    }
  }
  scorer.cache.clear();
  return best;
}

}  // namespace meshplan
