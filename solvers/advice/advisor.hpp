// `meshplan advise`: the plan re-made under every candidate change (solvers/advice_changes.hpp)
// and every combination of up to max_changes of them, ranked by the gain in the objective. Every
// combination is tried while their plans fit the budget; beyond it, the combinations of the
// changes with the largest gains alone, and the report says how many were left untried.
#pragma once

#include <string>
#include <vector>

#include "lib/cluster/catalog.hpp"
#include "lib/cluster/cluster.hpp"
#include "lib/core/clock.hpp"
#include "lib/core/file_system.hpp"
#include "lib/plan/advice.hpp"
#include "solvers/problem/plan_request.hpp"
#include "solvers/serving/workload.hpp"

namespace meshplan {

struct AdviseRequest {
  std::string model;  // as named: catalog name, folder or config.json
  std::string quant;  // --quant, "" for the name's
  // Several models (--workload) instead of `model`: ranked by the workload planner's objective.
  std::vector<WorkloadEntry> workload;
  PlanRequest plan;
  std::vector<std::string> buy;  // machine keys; empty = one more like each host
  int max_changes = 2;
  int plan_budget = 30;  // plans for the combinations before the search narrows
  int jobs = 0;          // threads; 0 = one per core
};

// Throws an input error for an unknown --buy machine; a baseline that does not fit is a row like
// any other (advice then names what makes it fit).
AdviceReport advise(const Cluster& cluster, const Catalog& catalog, const AdviseRequest& request,
                    const FileSystem& fs, const Clock& clock);

}  // namespace meshplan
