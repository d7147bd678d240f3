#include "solvers/strategy/engine_choice.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "lib/core/error.hpp"
#include "lib/plan/strategy_kind.hpp"

namespace meshplan {
namespace {

// Why `e` runs none of `view`: "pipeline: its own equal split only; tensor: ...".
std::string runs_nothing(const Engine& e, const std::vector<const Outcome*>& view) {
  std::string why;
  for (const Outcome* o : view)
    why += fmt::format("{}{}: {}", why.empty() ? "" : "; ", o->strategy,
                       o->plan ? layout_refusal(e, *o->plan) : o->reason);
  return why;
}

// The outcomes as engine `e` would run them: its own split in place of the planned pipeline
// where it has one.
std::vector<const Outcome*> engine_view(const Engine& e, const std::vector<Outcome>& outcomes,
                                        const OwnSplit& own_split) {
  std::vector<const Outcome*> view;
  for (const Outcome& o : outcomes) {
    const Outcome* own = is_strategy(o.strategy, StrategyKind::kPipeline) ? own_split(e) : nullptr;
    view.push_back(own ? own : &o);
  }
  return view;
}

// The layouts of `view` that `e` runs.
std::vector<const Outcome*> runnable_layouts(const Engine& e,
                                             const std::vector<const Outcome*>& view) {
  std::vector<const Outcome*> runnable;
  for (const Outcome* o : view)
    if (o->plan && layout_refusal(e, *o->plan).empty()) runnable.push_back(o);
  return runnable;
}

}  // namespace

double Scorer::of(const Outcome& o) const {
  if (!o.plan) return -1;
  if (!score) return tps(*o.plan);
  auto it = cache.find(&*o.plan);
  if (it == cache.end()) it = cache.emplace(&*o.plan, score(*o.plan)).first;
  return it->second;
}

// The best of `list`: by score where a score is given and any plan meets the request, else the
// fastest (so that the caller's own check names what is missing). Ties go to the earlier one.
const Outcome* best_of(const std::vector<const Outcome*>& list, const Scorer& scorer) {
  const Outcome* fastest = nullptr;
  for (const Outcome* o : list)
    if (o->plan && (!fastest || tps(*o->plan) > tps(*fastest->plan) * (1 + 1e-9))) fastest = o;
  if (!scorer.score || list.size() <= 1) return fastest;
  const Outcome* best = nullptr;
  for (const Outcome* o : list) {
    const double mine = scorer.of(*o);
    if (o->plan && mine >= 0 && (!best || mine > scorer.of(*best) * (1 + 1e-9))) best = o;
  }
  return best ? best : fastest;
}

std::vector<const Outcome*> pointers(const std::vector<Outcome>& outcomes) {
  std::vector<const Outcome*> out;
  for (const Outcome& o : outcomes)
    out.push_back(&o);
  return out;
}

EngineChoice choose_engine(const Cluster& cluster, const Catalog& catalog,
                           const PlanRequest& request, const PlanningProblem& problem,
                           const std::vector<Outcome>& outcomes, const OwnSplit& own_split,
                           const Scorer& scorer) {
  EngineChoice c;
  c.considered = pointers(outcomes);
  std::vector<std::string> hosts;
  for (size_t i = 0; i < problem.size(); ++i)
    hosts.push_back(problem.host(i).name);
  if (request.engine == "any") {
    c.reason = "any (--engine any): the fastest layout, whatever runs it";
    return c;
  }
  std::vector<const Engine*> tries;
  if (!request.engine.empty()) {
    const Engine* e = find_engine(request.engine);
    if (!e) throw input_error("--engine {}: expected {} or any", request.engine, engine_names());
    const std::string why = platform_refusal(*e, cluster, catalog, hosts);
    if (!why.empty())
      throw input_error(
          "--engine {}: {} does not run on these hosts ({}); choose hosts with --hosts",
          request.engine, e->title, why);
    tries = {e};
    c.reason = "asked for";
  } else {
    const Engine* e = infer_engine(cluster, catalog, hosts, c.reason);
    if (!e) {
      c.reason = "none: " + c.reason;
      return c;
    }
    tries.push_back(e);
    for (const Engine& other : engines())
      if (&other != e && runs_on(other, cluster, catalog, hosts)) tries.push_back(&other);
  }
  // Macs or NVIDIA hosts have their engine; on a mix or CPU hosts, the engine that runs on every
  // host with the fastest layout is chosen.
  const bool fastest = request.engine.empty() && !one_platform_engine(cluster, catalog, hosts);
  std::string refused;
  for (const Engine* e : tries) {
    std::vector<const Outcome*> view = engine_view(*e, outcomes, own_split);
    const Outcome* best = best_of(runnable_layouts(*e, view), scorer);
    if (best && fastest) {
      if (!c.outcome || scorer.of(*best) > scorer.of(*c.outcome) * (1 + 1e-9)) {
        c.engine = e;
        c.outcome = best;
        c.considered = view;
      }
      continue;
    }
    if (best) {
      if (e != tries.front())
        c.reason = fmt::format("{} runs no layout that fits ({}); {} runs on every host",
                               tries.front()->title, refused, e->title);
      c.engine = e;
      c.outcome = best;
      c.considered = std::move(view);
      return c;
    }
    if (refused.empty()) refused = runs_nothing(*e, view);
  }
  if (c.outcome) {
    std::string names;
    for (const Engine* e : tries)
      names += fmt::format("{}{}", names.empty() ? "" : ", ", e->name);
    c.reason = fmt::format("the fastest layout of the engines that run on every host ({})", names);
    return c;
  }
  if (!request.engine.empty())
    throw failure("{} runs no layout that fits these hosts: {}", tries.front()->title, refused);
  c.reason = fmt::format("none: no engine of these hosts runs a layout that fits; {}: {}",
                         tries.front()->title, refused);
  return c;
}

// The fastest layout of all, when an engine other than the plan's runs it faster: "the planned
// split is 1.18x faster ...; llama.cpp RPC runs it (--engine llama-rpc)".
void note_faster_elsewhere(Plan& plan, const EngineChoice& pick,
                           const std::vector<Outcome>& outcomes, const OwnSplit& own_split,
                           const Scorer& scorer, const Cluster& cluster, const Catalog& catalog) {
  if (!pick.engine) return;
  const Outcome* best = best_of(pointers(outcomes), scorer);
  if (!best || best == pick.outcome) return;
  const std::vector<std::string> hosts = plan_hosts(*best->plan);
  const Engine* runner = nullptr;
  for (const Engine& e : engines())
    if (!runner && runs_on(e, cluster, catalog, hosts) && layout_refusal(e, *best->plan).empty())
      runner = &e;
  // The runner's own pipeline of the planned split: the same ranges at its cost per hop.
  const Outcome* runs = best;
  if (runner && is_strategy(best->strategy, StrategyKind::kPipeline))
    if (const Outcome* own = own_split(*runner); own && own->plan) runs = own;
  const double mine = scorer.of(*pick.outcome), theirs = scorer.of(*runs);
  if (mine <= 0 || theirs <= mine * 1.005) return;
  plan.notes.push_back(
      fmt::format("{} is {:.2f}x faster ({:.1f} tokens/s{} against {:.1f}); {}",
                  is_strategy(best->strategy, StrategyKind::kPipeline)
                      ? std::string("the planned split")
                      : fmt::format("the {} plan", best->strategy),
                  theirs / mine, theirs, scorer.score ? " in all" : "", mine,
                  runner ? fmt::format("{} runs it (--engine {})", runner->title, runner->name)
                         : std::string("no engine of these hosts runs it as planned")));
}

}  // namespace meshplan
