// The plan file (meshplan.plan/2) with the stable keys of SPEC section 2.3, plus the figures it
// used (per layer and per host), so that anyone can recompute the prediction by hand.
#pragma once

#include <string>

#include "lib/core/json_util.hpp"
#include "lib/models/model.hpp"
#include "lib/plan/plan.hpp"

namespace meshplan {

ojson plan_to_json(const Plan& plan, const ModelDesc& model);
std::string write_plan_json(const Plan& plan, const ModelDesc& model);

}  // namespace meshplan
