#include "lib/plan/workload_plan.hpp"

#include <fmt/format.h>

#include <cmath>

#include "lib/core/json_util.hpp"
#include "lib/plan/plan_json.hpp"
#include "lib/plan/plan_report.hpp"

namespace meshplan {

std::string write_workload_json(const std::string& objective, const std::vector<Plan>& plans,
                                const std::vector<const ModelDesc*>& models,
                                const std::vector<double>& shares) {
  ojson j;
  j["schema"] = kWorkloadPlanSchema;
  j["objective"] = objective;
  ojson ps = ojson::array();
  for (size_t i = 0; i < plans.size(); ++i) {
    ojson x;
    x["share"] = json_number(std::round(shares[i] * 10000) / 10000);
    x["plan"] = plan_to_json(plans[i], *models[i]);
    ps.push_back(x);
  }
  j["plans"] = ps;
  return j.dump(2) + "\n";
}

std::string render_workload(const std::string& objective, const std::vector<Plan>& plans,
                            const std::vector<double>& shares) {
  std::string out = fmt::format("Workload of {} models, objective {}\n", plans.size(), objective);
  for (size_t i = 0; i < plans.size(); ++i) {
    out += fmt::format("\n== {} ({:.0f} % of the requests) ==\n", plans[i].model_name,
                       shares[i] * 100);
    out += render_plan(plans[i]);
  }
  return out;
}

}  // namespace meshplan
