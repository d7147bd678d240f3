// `plan --json` for a plan that cannot be made: readers of stdout get an object for it too, with
// the error and the exit code the command ends with.
#pragma once

#include <string>

#include "lib/core/error.hpp"

namespace meshplan {

// {"schema", "feasible": false, "model", "error", "exit_code"}, indented by 2, with a newline.
std::string write_infeasible_plan_json(const std::string& model_name, const Error& error);

}  // namespace meshplan
