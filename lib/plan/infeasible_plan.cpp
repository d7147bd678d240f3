#include "lib/plan/infeasible_plan.hpp"

#include <nlohmann/json.hpp>

#include "lib/plan/plan.hpp"

namespace meshplan {

std::string write_infeasible_plan_json(const std::string& model_name, const Error& error) {
  nlohmann::ordered_json j;
  j["schema"] = kPlanSchema;
  j["feasible"] = false;
  j["model"] = model_name;
  j["error"] = error.what();
  j["exit_code"] = exit_code(error.kind());
  return j.dump(2) + "\n";
}

}  // namespace meshplan
