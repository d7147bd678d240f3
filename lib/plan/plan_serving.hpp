// The serving part of a plan (--concurrency, --objective, replicas, shapes) in the plan file and
// the table, and the file of a workload's plans (meshplan.workload-plan/1). Added only when a plan
// has it, so plans made without serving flags keep their exact form.
#pragma once

#include <string>
#include <vector>

#include "lib/core/json_util.hpp"
#include "lib/models/model.hpp"
#include "lib/plan/plan.hpp"

namespace meshplan {

// Adds "serving", "replicas", "shapes" and "frontier" to a plan's JSON when present.
void add_serving_json(const Plan& plan, ojson& j);
// The table's serving lines ("" when the plan has none), the frontier's table last.
std::string render_serving(const Plan& plan);
// The frontier as a table: a line per shape and load.
std::string render_frontier_table(const Frontier& frontier);

}  // namespace meshplan
