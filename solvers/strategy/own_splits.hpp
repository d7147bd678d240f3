// The pipeline each engine loads when it does not take the planned split: mlx-lm's equal ranges,
// exo's placement, llama.cpp RPC's hops through its main host, vLLM's one tensor-parallel degree on
// every stage. Each kind of split is planned once, on demand, when the engine choice asks for it.
// Internal to solvers/strategy_planner.cpp.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "lib/cluster/catalog.hpp"
#include "lib/plan/engines.hpp"
#include "solvers/problem/plan_request.hpp"
#include "solvers/problem/planning_problem.hpp"
#include "solvers/strategy/engine_choice.hpp"

namespace meshplan {

// What the llama.cpp RPC client adds to a token for one remote stage `stage` when `main` runs
// llama-server: its RPC calls to that stage (the inputs, the graph, the output read back), beyond
// the links' own time: the catalog's round trips per stage on their link's call round trip (what
// calibrate measured on the cable, else twice its TCP latency) and its processing per stage.
// Candidate indices of `p`; 0 without a link between them. With stage == main: the main host's
// own stage, which on a CPU host is an rpc-server of its own on 127.0.0.1 (the catalog's
// loopback round trip), and nothing on a host whose accelerator llama-server drives itself.
double rpc_round_trip_s(const Catalog& catalog, const Engine& engine, const PlanningProblem& p,
                        size_t main, size_t stage);

// Plans the pipeline strategy over the routes' problems, as plan_model does.
using PlanPipeline = std::function<Outcome(const std::vector<PlanningProblem>&)>;

class OwnSplits {
 public:
  OwnSplits(const Catalog& catalog, const PlanRequest& request,
            const std::vector<PlanningProblem>& problems, const std::vector<Outcome>& outcomes,
            const Scorer& scorer, PlanPipeline plan_pipeline)
      : catalog_(catalog),
        request_(request),
        problems_(problems),
        outcomes_(outcomes),
        scorer_(scorer),
        plan_pipeline_(std::move(plan_pipeline)) {}

  // The engine's own pipeline; nullptr when it runs the planned one.
  const Outcome* of(const Engine& e);

 private:
  Outcome vllm_pipeline() const;
  // llama.cpp RPC's pipeline: the best over the candidate main hosts of the main host's problem
  // (PlanningProblem::via_main_host), or no plan saying which link no main host has. Above 256
  // candidates, over the hosts of the planned pipeline (a note says so).
  Outcome llama_rpc_pipeline(const Engine& e) const;
  Outcome via_main_host(const Engine& e, size_t main, const std::string& solver) const;
  // The candidates the planned pipeline uses (`pipeline_only`) or any planned layout uses, in
  // rank order, first plan first; none without such a plan.
  std::vector<size_t> planned_hosts(bool pipeline_only) const;

  const Catalog& catalog_;
  const PlanRequest& request_;
  const std::vector<PlanningProblem>& problems_;
  const std::vector<Outcome>& outcomes_;
  const Scorer& scorer_;
  PlanPipeline plan_pipeline_;
  std::map<std::string, Outcome> splits_;  // by kind of split; addresses stay put
};

}  // namespace meshplan
