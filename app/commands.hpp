// The subcommands. Each file adds one to the CLI; its callback only stores in ctx.run what to do,
// which cli.cpp runs once parsing is complete. A command parses, calls the library, prints and
// returns its exit code; errors are thrown as meshplan::Error and mapped in cli.cpp.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>

#include "app/console.hpp"
#include "lib/cluster/catalog.hpp"
#include "lib/core/clock.hpp"
#include "lib/core/file_system.hpp"

namespace meshplan {

struct AppContext {
  Console& console;
  FileSystem& fs;
  const Clock& clock;
  const Catalog& catalog;
  std::function<int()> run;
};

void add_plan_command(CLI::App& app, AppContext& ctx);
void add_chips_command(CLI::App& app, AppContext& ctx);
void add_models_command(CLI::App& app, AppContext& ctx);
void add_check_command(CLI::App& app, AppContext& ctx);
void add_dot_command(CLI::App& app, AppContext& ctx);
void add_emit_command(CLI::App& app, AppContext& ctx);
void add_setup_command(CLI::App& app, AppContext& ctx);
void add_teardown_command(CLI::App& app, AppContext& ctx);
void add_discover_command(CLI::App& app, AppContext& ctx);
void add_profile_command(CLI::App& app, AppContext& ctx);
void add_advise_command(CLI::App& app, AppContext& ctx);
void add_calibrate_command(CLI::App& app, AppContext& ctx);
void add_measure_command(CLI::App& app, AppContext& ctx);

// Shared by commands: reads a file or "-" for stdin.
std::string read_input(AppContext& ctx, const std::string& path);
// Writes `content` to `path` atomically, or to stdout when path is "-".
void write_output(AppContext& ctx, const std::string& path, const std::string& content);
// Today's date (UTC) as measured figures record it: "2026-11-27".
std::string today();
// Splits "a,b,c" and expands ranges such as mac[1-4].
std::vector<std::string> split_list(const std::string& text);

}  // namespace meshplan
