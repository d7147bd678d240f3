#include "solvers/strategy/own_splits.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>

#include "lib/core/engine_rules.hpp"
#include "lib/plan/strategy_kind.hpp"
#include "solvers/pipeline/tensor_degrees.hpp"
#include "solvers/problem/candidate_classes.hpp"
#include "solvers/problem/left_out.hpp"

namespace meshplan {

namespace {

// The most main hosts a llama.cpp RPC plan tries: each is one pipeline search.
constexpr size_t kMainHostCandidates = 8;
// Above this many candidates llama.cpp RPC's split is planned over the planned pipeline's hosts:
// where the hosts reach the main host unalike, its problem has a link per pair of hosts (256
// hosts of six kinds: 4 s of a 4.1 s plan).
constexpr size_t kRpcAllCandidates = 128;

// Whether a and b have a link both ways in some route's links.
bool linked(const std::vector<PlanningProblem>& problems, size_t a, size_t b) {
  for (const PlanningProblem& p : problems)
    if (p.backend_links()[a][b] && p.backend_links()[b][a]) return true;
  return false;
}

// The candidates a main host may be: those that reach the most other hosts directly first (the
// main host needs a link to every stage), then the most memory (it holds the embedding and LM
// head); at most kMainHostCandidates, one of each class of interchangeable hosts among them.
std::vector<size_t> main_host_candidates(const std::vector<PlanningProblem>& problems) {
  const PlanningProblem& p = problems.front();
  std::vector<size_t> reach(p.size(), 0), order(p.size());
  for (size_t a = 0; a < p.size(); ++a) {
    order[a] = a;
    for (size_t b = 0; b < p.size(); ++b)
      if (a != b && linked(problems, a, b)) ++reach[a];
  }
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (reach[a] != reach[b]) return reach[a] > reach[b];
    return p.host(a).usable_bytes > p.host(b).usable_bytes;
  });
  if (order.size() > kMainHostCandidates) order.resize(kMainHostCandidates);
  // A main host interchangeable with one before it in every route gives the same plan.
  std::vector<size_t> kept;
  for (size_t a : order)
    if (std::none_of(kept.begin(), kept.end(), [&](size_t b) {
          return std::all_of(problems.begin(), problems.end(),
                             [&](const PlanningProblem& q) { return interchangeable(q, a, b); });
        }))
      kept.push_back(a);
  return kept;
}

// Why no host can be llama.cpp RPC's main host for `hosts` (candidate indices): the host that
// misses the fewest direct links and the hosts it misses; "" when one reaches every other.
std::string missing_main_link(const std::vector<PlanningProblem>& problems,
                              const std::vector<size_t>& hosts) {
  std::vector<std::string> best_missing;
  size_t best = 0;
  for (size_t a : hosts) {
    std::vector<std::string> missing;
    for (size_t b : hosts)
      if (a != b && !linked(problems, a, b)) missing.push_back(problems.front().host(b).name);
    if (missing.empty()) return "";
    if (best_missing.empty() || missing.size() < best_missing.size()) {
      best_missing = std::move(missing);
      best = a;
    }
  }
  std::vector<std::string> names;
  for (size_t a : hosts)
    names.push_back(problems.front().host(a).name);
  return fmt::format(
      "llama.cpp RPC passes every tensor between stages through its main host (llama-server's), "
      "which needs a direct link to every stage, and no host of {} has one ({} has no link to "
      "{}); add that link or plan fewer hosts with --hosts",
      fmt::join(names, ", "), problems.front().host(best).name, fmt::join(best_missing, ", "));
}

}  // namespace

double rpc_round_trip_s(const Catalog& catalog, const Engine& engine, const PlanningProblem& p,
                        size_t main, size_t stage) {
  const Catalog::EngineHop hop = catalog.engine_hop(engine.name);
  if (main == stage) return p.host(main).cpu_only ? hop.on(catalog.loopback_round_trip_s()) : 0;
  const auto& link = p.backend_links()[main][stage];
  return link ? hop.on(link->call_round_trip_s()) : 0;
}

const Outcome* OwnSplits::of(const Engine& e) {
  if (e.kind == EngineKind::kLlamaRpc) {
    const std::string key(name(EngineKind::kLlamaRpc));
    auto it = splits_.find(key);
    if (it == splits_.end()) it = splits_.emplace(key, llama_rpc_pipeline(e)).first;
    return &it->second;
  }
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
  // Engines other than llama.cpp RPC price no link of their own: their processing only.
  const double hop_s = catalog_.engine_hop(e.name).stage_s;
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

Outcome OwnSplits::via_main_host(const Engine& e, size_t main, const std::string& solver) const {
  // Every problem plans the same model.
  const ModelDesc& model = problems_.front().model();
  const double reads = catalog_.engine_weight_reads(e.name).at(model.bits_per_weight());
  std::vector<PlanningProblem> split;
  for (const PlanningProblem& p : problems_) {
    split.push_back(p.via_main_host(
        main, solver,
        [&](size_t m, size_t stage) { return rpc_round_trip_s(catalog_, e, p, m, stage); }, reads));
  }
  Outcome o = plan_pipeline_(split);
  const std::string& main_name = problems_.front().host(main).name;
  // A split whose last rank is another host (a solver that sets the order itself) is not one
  // llama.cpp runs with this main host.
  if (o.plan && o.plan->ranks.back().host != main_name) {
    o.reason = fmt::format("the {} split does not end on the main host {}", solver, main_name);
    o.plan.reset();
  }
  if (o.plan && o.plan->ranks.size() > 1) {
    const PlanningProblem& p = problems_.front();
    double rt = 0;
    for (size_t j = 0; j + 1 < o.plan->ranks.size(); ++j)
      for (size_t i = 0; i < p.size(); ++i)
        if (p.host(i).name == o.plan->ranks[j].host)
          rt += rpc_round_trip_s(catalog_, e, p, main, i);
    o.plan->notes.push_back(fmt::format(
        "{} runs llama-server on {}, the last rank, with the embedding and LM head; every hop "
        "between stages goes through it, and its round trips to {} add {:.1f} ms a token",
        e.title, main_name,
        o.plan->ranks.size() == 2 ? std::string("the remote stage")
                                  : fmt::format("the {} remote stages", o.plan->ranks.size() - 1),
        rt * 1e3));
  }
  if (o.plan) {
    const PlanningProblem& p = problems_.front();
    if (const double local = rpc_round_trip_s(catalog_, e, p, main, main); local > 0)
      o.plan->notes.push_back(fmt::format(
          "{} has no accelerator: llama-server reaches its CPU through an rpc-server of its own on "
          "127.0.0.1, whose calls add {:.1f} ms a token",
          main_name, local * 1e3));
    const bool gpu = std::any_of(p.inputs().hosts.begin(), p.inputs().hosts.end(),
                                 [](const HostFigures& h) { return !h.cpu_only; });
    if (reads < 1 && gpu)
      o.plan->notes.push_back(fmt::format(
          "{} reads {:.1f}-bit weights at {:.0f} % of what its hosts' GPUs reach on wider ones "
          "(its low-bit kernels)",
          e.title, model.bits_per_weight(), reads * 100));
  }
  return o;
}

Outcome OwnSplits::llama_rpc_pipeline(const Engine& e) const {
  Outcome best{std::string(name(StrategyKind::kPipeline)), std::nullopt, "", {}};
  if (problems_.empty()) return best;
  // On a fleet, over the planned pipeline's hosts only: the main host's problem gives every pair
  // a link of its own (a hop depends on both ends and the main host), n^2 of them.
  if (problems_.front().size() > kRpcAllCandidates) {
    std::vector<size_t> hosts = planned_hosts(true);
    const bool pipeline = !hosts.empty();
    if (!pipeline) hosts = planned_hosts(false);  // no pipeline: the hosts any layout uses
    if (hosts.empty() || hosts.size() == problems_.front().size()) {
      best.reason = fmt::format(
          "on more than {} candidates {} is planned over the hosts of a planned layout, and no "
          "layout uses fewer than all of them",
          kRpcAllCandidates, e.title);
      return best;
    }
    std::vector<PlanningProblem> sub;
    for (const PlanningProblem& p : problems_)
      sub.push_back(p.subset(hosts, request_.solver));
    Outcome o = OwnSplits(catalog_, request_, sub, outcomes_, scorer_, plan_pipeline_)
                    .llama_rpc_pipeline(e);
    if (o.plan) {
      record_left_out(*o.plan, problems_.front(), "");
      o.plan->notes.push_back(fmt::format(
          "{}'s split is planned over the {} hosts of the planned {}, not all {} candidates",
          e.title, hosts.size(),
          pipeline ? name(StrategyKind::kPipeline) : std::string_view("layouts"),
          problems_.front().size()));
    }
    return o;
  }
  bool rejected = false;  // a split was found but a check refused it: its reason says more
  for (size_t main : main_host_candidates(problems_)) {
    Outcome o = via_main_host(e, main, request_.solver);
    const bool better = o.plan && (!best.plan || scorer_.of(o) > scorer_.of(best) * (1 + 1e-9));
    // Scores are cached by address: `o`'s is the next main host's, and `best`'s may change.
    if (o.plan) scorer_.cache.erase(&*o.plan);
    if (better) {
      scorer_.cache.clear();
      best = std::move(o);
    } else if (!best.plan) {
      const bool refused = std::any_of(o.attempts.begin(), o.attempts.end(),
                                       [](const Attempt& a) { return a.plan.has_value(); });
      if (best.reason.empty() || (refused && !rejected)) best.reason = o.reason;
      rejected = rejected || refused;
    }
  }
  scorer_.cache.clear();
  if (best.plan || rejected) return best;
  // The hosts the planned pipeline needs, or every candidate.
  std::vector<size_t> hosts = planned_hosts(true);
  if (hosts.empty())
    for (size_t i = 0; i < problems_.front().size(); ++i)
      hosts.push_back(i);
  if (std::string why = missing_main_link(problems_, hosts); !why.empty()) best.reason = why;
  return best;
}

std::vector<size_t> OwnSplits::planned_hosts(bool pipeline_only) const {
  std::map<std::string, size_t, std::less<>> index;
  for (size_t i = 0; i < problems_.front().size(); ++i)
    index.emplace(problems_.front().host(i).name, i);
  std::vector<size_t> hosts;
  std::vector<bool> seen(problems_.front().size(), false);
  for (const Outcome& o : outcomes_)
    if (o.plan && (!pipeline_only || is_strategy(o.strategy, StrategyKind::kPipeline)))
      for (const std::string& h : plan_hosts(*o.plan))
        if (auto it = index.find(h); it != index.end() && !seen[it->second]) {
          seen[it->second] = true;
          hosts.push_back(it->second);
        }
  return hosts;
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
    const bool better = o.plan && layout_refusal(vllm, *o.plan).empty() &&
                        (!best.plan || scorer.of(o) > scorer.of(best) * (1 + 1e-9));
    // Scores are cached by address: `o`'s is the next degree's, and `best`'s may change.
    if (o.plan) scorer.cache.erase(&*o.plan);
    if (better) {
      scorer.cache.clear();
      best = std::move(o);
    }
  }
  scorer.cache.clear();
  return best;
}

}  // namespace meshplan
