#include "app/cli.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <sstream>

#include "app/commands.hpp"
#include "lib/core/error.hpp"
#include "lib/core/nearest_names.hpp"

#ifndef MESHPLAN_VERSION
#define MESHPLAN_VERSION "0.0.0"
#endif

namespace meshplan {
namespace {

constexpr const char* kDescription =
    R"(meshplan: plan and configure multi-machine LLM inference clusters.

Examples:
  meshplan discover mac[1-4] -o cluster.json        # probe the hosts over SSH
  meshplan check -c cluster.json                     # which backend works, what to re-cable
  meshplan dot -c cluster.json | dot -Tsvg > cluster.svg
  meshplan plan -c examples/clusters/mac-studio-m3-ultra-x4.yaml -m deepseek-v3.1-4bit
  meshplan plan -c cluster.json -m qwen3-235b-a22b-8bit -o plan.json
  meshplan emit mlx-hostfile -c cluster.json --plan plan.json -o hosts.json
  meshplan setup -c cluster.json                     # interface commands per host
  meshplan setup -c cluster.json --apply             # run them over SSH (undo: teardown --apply)
  meshplan models deepseek-v3.1-4bit
  meshplan chips
)";

// The top-level help lists each command by the first line of its description; the examples and
// options are in `meshplan COMMAND --help`.
class CommandListFormatter : public CLI::Formatter {
 public:
  std::string make_subcommand(const CLI::App* sub) const override {
    // The first paragraph's first sentence, on one line.
    std::string d = sub->get_description();
    d = d.substr(0, d.find("\n\n"));
    std::replace(d.begin(), d.end(), '\n', ' ');
    if (size_t end = d.find(". "); end != std::string::npos) d = d.substr(0, end + 1);
    std::string name = sub->get_display_name(true);
    return "  " + name + std::string(name.size() < 12 ? 12 - name.size() : 1, ' ') + d + "\n";
  }
};

// The first word that is not an option must be a command; a typo gets the nearest names instead
// of CLI11's "A subcommand is required".
void require_known_command(const CLI::App& app, int argc, char** argv) {
  std::vector<std::string> names;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; }))
    names.push_back(sub->get_name());
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a.empty() || a[0] == '-') continue;
    if (std::find(names.begin(), names.end(), a) != names.end()) return;
    throw input_error("unknown command \"{}\"{}; commands: {} (meshplan --help)", a,
                      did_you_mean(a, names), fmt::format("{}", fmt::join(names, ", ")));
  }
}

constexpr const char* kFooter =
    R"(Exit codes: 0 ok; 1 check failed or plan infeasible; 2 bad usage or bad input file;
3 a host could not be probed or configured; 4 an apply failed and left a host changed or its
state unknown (finish it with the undo script); 70 internal error.
Run `meshplan COMMAND --help` for the options and examples of a command.)";

}  // namespace

int run_cli(int argc, char** argv) {
  Console console = Console::standard();
  RealFileSystem fs;
  SteadyClock steady;
  // MESHPLAN_WORK_CLOCK=MICROSECONDS: searches with a deadline spend a fixed budget of work (each
  // clock reading counts that long), so a plan is the same on a busy machine as on an idle one.
  std::unique_ptr<WorkClock> work;
  if (const char* tick = std::getenv("MESHPLAN_WORK_CLOCK"); tick && *tick) {
    char* end = nullptr;
    const double us = std::strtod(tick, &end);
    if (*end != '\0' || !(us > 0)) {
      console.error(fmt::format(
          "MESHPLAN_WORK_CLOCK is \"{}\": expected the microseconds one clock reading counts, "
          "for example MESHPLAN_WORK_CLOCK=20",
          tick));
      return 2;
    }
    work = std::make_unique<WorkClock>(us * 1e-6);
  }
  const Clock& clock = work ? static_cast<const Clock&>(*work) : steady;
  int verbose = 0;
  bool quiet = false;
  try {
    AppContext ctx{console, fs, clock, Catalog::builtin(), {}};
    CLI::App app(kDescription, "meshplan");
    app.footer(kFooter);
    app.set_version_flag("--version", std::string("meshplan ") + MESHPLAN_VERSION);
    app.add_flag("-v,--verbose", verbose, "Print more detail on stderr (repeatable)");
    app.add_flag("-q,--quiet", quiet, "Print only data and errors");
    app.require_subcommand(1);
    app.fallthrough();
    add_plan_command(app, ctx);
    add_chips_command(app, ctx);
    add_models_command(app, ctx);
    add_check_command(app, ctx);
    add_dot_command(app, ctx);
    add_emit_command(app, ctx);
    add_setup_command(app, ctx);
    add_teardown_command(app, ctx);
    add_discover_command(app, ctx);
    add_profile_command(app, ctx);
    add_advise_command(app, ctx);
    add_calibrate_command(app, ctx);
    add_measure_command(app, ctx);
    app.formatter(std::make_shared<CommandListFormatter>());
    require_known_command(app, argc, argv);
    try {
      app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
      std::ostringstream out, err;
      int code = app.exit(e, out, err);
      console.data(out.str());
      if (code != 0) {
        std::string msg = err.str();
        if (!msg.empty() && msg.back() == '\n') msg.pop_back();
        console.error(msg);
        return 2;
      }
      return 0;
    }
    console.verbosity = quiet ? -1 : verbose;
    return ctx.run ? ctx.run() : 0;
  } catch (const Error& e) {
    console.error(e.what());
    return exit_code(e.kind());
  } catch (const std::exception& e) {
    console.error(std::string("internal error: ") + e.what());
    return 70;
  }
}

}  // namespace meshplan
