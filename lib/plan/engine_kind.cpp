#include "lib/plan/engine_kind.hpp"

#include <array>

#include "lib/core/name_table.hpp"

namespace meshplan {
namespace {

constexpr std::array<NameRow<EngineKind>, 4> kEngines = {{
    {EngineKind::kMlxLm, "mlx-lm", "mlx-lm through mlx.launch"},
    {EngineKind::kExo, "exo", "exo"},
    {EngineKind::kLlamaRpc, "llama-rpc", "llama.cpp RPC"},
    {EngineKind::kVllm, "vllm", "vLLM"},
}};

}  // namespace

std::string_view name(EngineKind engine) {
  return name_in(kEngines, engine);
}

std::string_view title(EngineKind engine) {
  return summary_in(kEngines, engine);
}

EngineKind parse_engine(std::string_view name) {
  return parse_in<EngineKind>(kEngines, "engine", name);
}

std::optional<EngineKind> find_engine_kind(std::string_view name) {
  return find_in<EngineKind>(kEngines, name);
}

const std::vector<EngineKind>& all_engines() {
  static const std::vector<EngineKind> all = values_in<EngineKind>(kEngines);
  return all;
}

std::vector<std::string> engine_name_list() {
  return names_in<EngineKind>(kEngines);
}

std::string engine_names() {
  return either_of(engine_name_list());
}

bool is_engine(std::string_view name, EngineKind engine) {
  return name == meshplan::name(engine);
}

}  // namespace meshplan
