// Entry point of `meshplan plan`: builds host and link figures for the candidate hosts, runs the
// requested solver, evaluates baselines and returns a complete Plan. Infeasible requests are
// failures (exit 1) that name the shortfall and what would fix it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "lib/catalog.hpp"
#include "lib/clock.hpp"
#include "lib/cluster.hpp"
#include "lib/expert_load.hpp"
#include "lib/model.hpp"
#include "lib/plan.hpp"

namespace meshplan {

struct LayerPin {
  std::string host;
  int start = 0;  // [start, end)
  int end = 0;
};

struct PlanRequest {
  std::string strategy = "pipeline";
  std::string solver = "optimal";  // optimal, proportional, proportional-v0
  std::string backend = "auto";    // auto, ring, jaccl, jaccl-ring, ethernet
  int64_t context = 4096;
  int64_t prompt = 512;
  std::vector<std::string> hosts;  // candidates, in ring order; empty = every host in file order
  int min_hosts = 0;
  int max_hosts = 0;  // 0 = no limit
  std::vector<LayerPin> pins;
  // Tensor and expert parallel (solvers/strategy_planner.hpp).
  bool allow_uneven = false;              // tensor shares proportional to speed and memory
  std::optional<ExpertLoad> expert_load;  // per-layer expert frequencies; empty = uniform
};

Plan make_plan(const Cluster& cluster, const Catalog& catalog, const ModelDesc& model,
               const PlanRequest& request, const Clock& clock);

}  // namespace meshplan
