// Every artifact meshplan writes for a user or an engine, in one table: `emit FORMAT` looks its
// format up here, `emit --help` and docs/emit.md's format list are generated from or checked
// against it. Each format is one small function over the one shared input: the cluster, its
// topology (link graph, Thunderbolt fabric, /30 plan), the check report with the chosen backend,
// and the plan's ranks when a plan was given.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "deploy/layout/emit_input.hpp"
#include "deploy/writers/mlx_env.hpp"

namespace meshplan {

struct EmitFormat {
  std::string_view name;
  std::string_view summary;  // one line: `emit --help` and docs/emit.md's table
  std::string (*write)(const EmitInput& input);
  std::string_view file;    // its file name in `emit all`'s folder
  bool needs_plan = false;  // refuses to run without --plan (ranks' layer ranges or strategy)
  // Whether `emit all` writes it for this plan; nullptr = always.
  bool (*applies)(const EmitInput& input) = nullptr;
  // The engines (lib/plan/engines.hpp) it launches, space-separated: `emit all` on a plan made
  // for an engine writes that engine's formats and the ones with none (every cluster's).
  std::string_view engines = {};
};

// Whether `emit all` writes `format` for a plan made for `engine` ("" = no engine named: every
// format that applies).
bool format_serves_engine(const EmitFormat& format, std::string_view engine);

const std::vector<EmitFormat>& emit_formats();
// nullptr for an unknown name.
const EmitFormat* find_emit_format(std::string_view name);
// "a, b or c": the names, for messages.
std::string emit_format_names();
// The "Formats:" block of `emit --help`: one line per format, names padded to one column.
std::string emit_formats_help();

// Input errors for --env values that are not KEY=VALUE with a key of letters, digits and _, and
// for option values no engine accepts.
void validate_emit_options(const std::vector<std::string>& envs, const MlxEnvOptions& options);

}  // namespace meshplan
