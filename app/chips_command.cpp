#include <memory>

#include "app/commands.hpp"
#include "lib/cluster/catalog_report.hpp"

namespace meshplan {
namespace {

constexpr const char* kChipsHelp =
    R"(List the built-in chip and machine catalog with the cost-model defaults, or one entry.

Examples:
  meshplan chips
  meshplan chips m3-ultra
  meshplan chips mac-studio-m3-ultra
  meshplan chips --json

Without NAME: one row per chip and one row per machine (with the chips it comes with). NAME is a
chip (m3-ultra-80c), a chip family (m3-ultra, h100) or a machine (mac-mini-m4-pro): its figures
and where each comes from. Bandwidth and FP16 FLOP/s are spec-sheet figures; plans multiply them
by the efficiencies shown at the end (override per host in the cluster file: mem_bandwidth, flops,
bandwidth_efficiency, flops_efficiency). A decode step's products reach for the decode peak
("FP16 at decode" where it differs: an M5's shader ALUs without its Neural Accelerators) at the
decode efficiency; a prompt's products for the FP16 figure. Every figure names its source in
--json.)";

int run_chips(const std::string& name, bool json, AppContext& ctx) {
  if (!name.empty())
    ctx.console.data(catalog_entry(ctx.catalog, name, json));
  else
    ctx.console.data(json ? catalog_json(ctx.catalog) : catalog_table(ctx.catalog));
  return 0;
}

}  // namespace

void add_chips_command(CLI::App& app, AppContext& ctx) {
  auto json = std::make_shared<bool>(false);
  auto name = std::make_shared<std::string>();
  CLI::App* sub = app.add_subcommand("chips", kChipsHelp);
  sub->add_option("NAME", *name, "A chip, chip family or machine to show with its sources");
  sub->add_flag("--json", *json, "Print the catalog (or NAME's chips) as JSON");
  sub->callback([json, name, &ctx] {
    ctx.run = [json, name, &ctx] { return run_chips(*name, *json, ctx); };
  });
}

}  // namespace meshplan
