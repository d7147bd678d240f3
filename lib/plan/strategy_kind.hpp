// The planning strategies, one name table: what --strategy takes and what a plan records as its
// strategy. The planners' own table (solvers/strategy/strategies.*) is keyed by these.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace meshplan {

enum class StrategyKind {
  kAuto,      // a request: every strategy, the fastest plan
  kPipeline,  // layer ranges
  kTensor,    // shares of every layer
  kExpert,    // MoE experts spread over the hosts
  kHybrid,    // tensor-parallel groups as pipeline stages
  kRouted,    // layer ranges with requests routed by max flow
};

std::string_view name(StrategyKind strategy);
// "layer ranges": the one-line description of the help text.
std::string_view summary(StrategyKind strategy);
// Throws an input error naming the nearest names and every valid one.
StrategyKind parse_strategy(std::string_view name);
std::optional<StrategyKind> find_strategy_kind(std::string_view name);
// --strategy's choices, auto first.
const std::vector<StrategyKind>& all_strategies();
std::vector<std::string> strategy_choices();
// "auto (the fastest of the others), pipeline (layer ranges), ...": --strategy's help.
std::string strategy_help();
// Whether `name` is `strategy`'s name.
bool is_strategy(std::string_view name, StrategyKind strategy);

}  // namespace meshplan
