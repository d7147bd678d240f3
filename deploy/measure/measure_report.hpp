// `meshplan measure`'s output: the table of levels (and the plan's prediction beside the level it
// predicts), and the same as JSON (meshplan.measure/1).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "deploy/measure/load_runner.hpp"
#include "deploy/measure/measured_serving.hpp"
#include "lib/core/json_util.hpp"

namespace meshplan {

inline constexpr const char* kMeasureSchema = "meshplan.measure/1";

struct MeasureReport {
  std::string url;  // the origin measured
  std::string api;  // "completions" or "chat"
  int prompt_tokens = 0;
  int output_tokens = 0;
  std::vector<LevelResult> levels;
  std::optional<PlanPrediction> plan;
};

std::string render_measure_table(const MeasureReport& report);
ojson measure_to_json(const MeasureReport& report);

}  // namespace meshplan
