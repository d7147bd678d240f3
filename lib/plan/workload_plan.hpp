// The plan of a workload (several models, each on its own hosts with its share of the requests):
// its file (meshplan.workload-plan/1, each model's plan file inside) and its table.
#pragma once

#include <string>
#include <vector>

#include "lib/models/model.hpp"
#include "lib/plan/plan.hpp"

namespace meshplan {

inline constexpr const char* kWorkloadPlanSchema = "meshplan.workload-plan/1";

// Several models' plans with their shares of the requests.
std::string write_workload_json(const std::string& objective, const std::vector<Plan>& plans,
                                const std::vector<const ModelDesc*>& models,
                                const std::vector<double>& shares);
std::string render_workload(const std::string& objective, const std::vector<Plan>& plans,
                            const std::vector<double>& shares);

}  // namespace meshplan
