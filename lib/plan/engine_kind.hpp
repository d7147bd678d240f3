// The engines meshplan launches, one name table: what --engine takes, what a plan records as its
// engine and what `emit` names its launch files' engine by. Their facts (where each runs, which
// layouts it loads) are the table of lib/plan/engines.*, keyed by these.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace meshplan {

enum class EngineKind { kMlxLm, kExo, kLlamaRpc, kVllm };

std::string_view name(EngineKind engine);
// "mlx-lm through mlx.launch": how reports name it.
std::string_view title(EngineKind engine);
// Throws an input error naming the nearest names and every valid one.
EngineKind parse_engine(std::string_view name);
std::optional<EngineKind> find_engine_kind(std::string_view name);
const std::vector<EngineKind>& all_engines();
std::vector<std::string> engine_name_list();
// "mlx-lm, exo, llama-rpc or vllm": the names, for messages.
std::string engine_names();
// Whether `name` is `engine`'s name.
bool is_engine(std::string_view name, EngineKind engine);

}  // namespace meshplan
