#include "lib/plan/strategy_kind.hpp"

#include <array>

#include "lib/core/name_table.hpp"

namespace meshplan {
namespace {

constexpr std::array<NameRow<StrategyKind>, 6> kStrategies = {{
    {StrategyKind::kAuto, "auto", "the fastest of the others"},
    {StrategyKind::kPipeline, "pipeline", "layer ranges"},
    {StrategyKind::kTensor, "tensor", "shares of every layer"},
    {StrategyKind::kExpert, "expert", "MoE experts spread over the hosts"},
    {StrategyKind::kHybrid, "hybrid",
     "tensor parallel inside groups of hosts, a pipeline between them"},
    {StrategyKind::kRouted, "routed", "layer ranges with requests routed by max flow; throughput"},
}};

}  // namespace

std::string_view name(StrategyKind strategy) {
  return name_in(kStrategies, strategy);
}

std::string_view summary(StrategyKind strategy) {
  for (const auto& row : kStrategies)
    if (row.value == strategy) return row.summary;
  return "";
}

StrategyKind parse_strategy(std::string_view name) {
  return parse_in<StrategyKind>(kStrategies, "strategy", name);
}

std::optional<StrategyKind> find_strategy_kind(std::string_view name) {
  return find_in<StrategyKind>(kStrategies, name);
}

const std::vector<StrategyKind>& all_strategies() {
  static const std::vector<StrategyKind> all = values_in<StrategyKind>(kStrategies);
  return all;
}

std::vector<std::string> strategy_choices() {
  return names_in<StrategyKind>(kStrategies);
}

std::string strategy_help() {
  std::vector<std::string> parts;
  for (const auto& row : kStrategies)
    parts.push_back(std::string(row.name) + " (" + std::string(row.summary) + ")");
  return either_of(parts);
}

bool is_strategy(std::string_view name, StrategyKind strategy) {
  return name == meshplan::name(strategy);
}

}  // namespace meshplan
