#include "app/cli.hpp"

#include <CLI/CLI.hpp>
#include <iostream>
#include <sstream>

#include "app/commands.hpp"
#include "lib/core/error.hpp"

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
  meshplan models deepseek-v3.1-4bit
  meshplan chips
)";

constexpr const char* kFooter =
    R"(Exit codes: 0 ok; 1 check failed or plan infeasible; 2 bad usage or bad input file;
3 one or more hosts could not be probed; 70 internal error.
Run `meshplan COMMAND --help` for the options and examples of a command.)";

}  // namespace

int run_cli(int argc, char** argv) {
  Console console = Console::standard();
  RealFileSystem fs;
  SteadyClock clock;
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
    add_bench_command(app, ctx);
    add_check_command(app, ctx);
    add_dot_command(app, ctx);
    add_emit_command(app, ctx);
    add_setup_command(app, ctx);
    add_discover_command(app, ctx);
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
