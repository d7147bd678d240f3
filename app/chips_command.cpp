#include <fmt/format.h>

#include <memory>

#include "app/commands.hpp"
#include "lib/core/json_util.hpp"
#include "lib/core/text_table.hpp"
#include "lib/core/units.hpp"

namespace meshplan {
namespace {

constexpr const char* kChipsHelp =
    R"(List the built-in chip and machine catalog with the cost-model defaults.

Examples:
  meshplan chips
  meshplan chips --json

Bandwidth and FP16 FLOP/s are spec-sheet figures; plans multiply them by the efficiencies shown
at the end (override per host in the cluster file: mem_bandwidth, flops, bandwidth_efficiency,
flops_efficiency). Every figure names its source in --json.)";

std::vector<std::string> machines_of(const Catalog& c, const std::string& chip) {
  std::vector<std::string> out;
  for (const auto& m : c.machines()) {
    if (std::find(m.chips.begin(), m.chips.end(), chip) != m.chips.end()) out.push_back(m.key);
  }
  return out;
}

int run_chips(bool json, AppContext& ctx) {
  const Catalog& c = ctx.catalog;
  if (json) {
    ojson list = ojson::array();
    for (const auto& chip : c.chips()) {
      ojson j;
      j["name"] = chip.key;
      j["display_name"] = chip.name;
      j["brand"] = chip.brand;
      j["vendor"] = chip.vendor;
      if (chip.gpu_cores) j["gpu_cores"] = chip.gpu_cores;
      j["mem_bandwidth_bytes_per_s"] = json_number(chip.mem_bandwidth);
      j["fp16_flops"] = json_number(chip.fp16_flops);
      j["max_memory_bytes"] = chip.max_memory;
      if (chip.gpu_memory) j["gpu_memory_bytes"] = chip.gpu_memory;
      j["unified_memory"] = chip.unified_memory;
      if (chip.thunderbolt) j["thunderbolt"] = chip.thunderbolt;
      const Efficiency& e = c.efficiency(chip.vendor);
      j["bandwidth_efficiency"] = json_number(e.bandwidth);
      j["flops_efficiency"] = json_number(e.flops);
      j["machines"] = machines_of(c, chip.key);
      ojson sources;
      for (const auto& [figure, src] : chip.sources) {
        std::string key = src.substr(0, src.find(' '));
        auto it = c.chip_sources().find(key);
        sources[figure] = it == c.chip_sources().end() ? src : src + ": " + it->second;
      }
      j["sources"] = sources;
      list.push_back(j);
    }
    ctx.console.data(list.dump(2) + "\n");
    return 0;
  }
  using A = TextTable::Align;
  TextTable t(
      {"chip", "name", "GPU cores", "bandwidth", "FP16", "max memory", "TB", "machines"},
      {A::kLeft, A::kLeft, A::kRight, A::kRight, A::kRight, A::kRight, A::kRight, A::kLeft});
  for (const auto& chip : c.chips()) {
    std::string machines;
    for (const auto& m : machines_of(c, chip.key))
      machines += (machines.empty() ? "" : ", ") + m;
    t.add_row({chip.key, chip.name, chip.gpu_cores ? std::to_string(chip.gpu_cores) : "-",
               fmt::format("{:.0f} GB/s", chip.mem_bandwidth / 1e9),
               fmt::format("{:.1f} TFLOPS", chip.fp16_flops / 1e12),
               format_gib(static_cast<double>(chip.max_memory)),
               chip.thunderbolt ? std::to_string(chip.thunderbolt) : "-",
               machines.empty() ? "-" : machines});
  }
  std::string out = t.render();
  TextTable mt({"machine", "name", "Thunderbolt", "ports", "Ethernet"},
               {A::kLeft, A::kLeft, A::kRight, A::kRight, A::kLeft});
  for (const auto& m : c.machines()) {
    mt.add_row({m.key, m.name, m.tb_generation ? fmt::format("TB{}", m.tb_generation) : "-",
                std::to_string(m.tb_interfaces.size()),
                m.ethernet ? link_kind_name(*m.ethernet) : "-"});
  }
  out += "\n" + mt.render();
  const Efficiency& apple = c.efficiency("apple");
  const Efficiency& nvidia = c.efficiency("nvidia");
  out += fmt::format(
      "\nCost-model defaults: Apple GPUs reach {:.0f} % of spec bandwidth and {:.0f} % of FP16 "
      "FLOP/s, NVIDIA {:.0f} % and {:.0f} %;\n"
      "usable memory on macOS = memory - max(6 GiB, 15 %) unless iogpu.wired_limit_mb is set; "
      "{:.1f} ms overhead per pipeline stage.\n",
      apple.bandwidth * 100, apple.flops * 100, nvidia.bandwidth * 100, nvidia.flops * 100,
      c.stage_overhead_s() * 1e3);
  ctx.console.data(out);
  return 0;
}

}  // namespace

void add_chips_command(CLI::App& app, AppContext& ctx) {
  auto json = std::make_shared<bool>(false);
  CLI::App* sub = app.add_subcommand("chips", kChipsHelp);
  sub->add_flag("--json", *json, "Print the catalog as JSON");
  sub->callback([json, &ctx] { ctx.run = [json, &ctx] { return run_chips(*json, ctx); }; });
}

}  // namespace meshplan
