#include "lib/cluster/catalog_report.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "lib/core/error.hpp"
#include "lib/core/json_util.hpp"
#include "lib/core/nearest_names.hpp"
#include "lib/core/text_table.hpp"
#include "lib/core/units.hpp"

namespace meshplan {
namespace {

std::vector<std::string> machines_of(const Catalog& c, const std::string& chip) {
  std::vector<std::string> out;
  for (const auto& m : c.machines()) {
    if (std::find(m.chips.begin(), m.chips.end(), chip) != m.chips.end()) out.push_back(m.key);
  }
  return out;
}

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& s : items)
    out += (out.empty() ? "" : ", ") + s;
  return out.empty() ? "-" : out;
}

// "apple-newsroom" -> "apple-newsroom: Apple newsroom and ..." when the key is a known source.
std::string source_text(const Catalog& c, const std::string& src) {
  std::string key = src.substr(0, src.find(' '));
  auto it = c.chip_sources().find(key);
  return it == c.chip_sources().end() ? src : src + ": " + it->second;
}

ojson chip_json(const Catalog& c, const ChipSpec& chip) {
  ojson j;
  j["name"] = chip.key;
  j["display_name"] = chip.name;
  j["brand"] = chip.brand;
  if (!chip.aliases.empty()) j["aliases"] = chip.aliases;
  j["vendor"] = chip.vendor;
  if (chip.gpu_cores) j["gpu_cores"] = chip.gpu_cores;
  j["mem_bandwidth_bytes_per_s"] = json_number(chip.mem_bandwidth);
  j["fp16_flops"] = json_number(chip.fp16_flops);
  j["decode_fp16_flops"] = json_number(chip.decode_flops);
  j["max_memory_bytes"] = chip.max_memory;
  if (chip.gpu_memory) j["gpu_memory_bytes"] = chip.gpu_memory;
  j["unified_memory"] = chip.unified_memory;
  if (chip.thunderbolt) j["thunderbolt"] = chip.thunderbolt;
  if (!chip.nvlink.empty()) j["nvlink"] = chip.nvlink;
  const Efficiency& e = c.efficiency(chip.vendor);
  j["bandwidth_efficiency"] = json_number(e.bandwidth);
  j["flops_efficiency"] = json_number(e.flops);
  j["decode_flops_efficiency"] = json_number(e.decode_flops);
  j["machines"] = machines_of(c, chip.key);
  ojson sources;
  for (const auto& [figure, src] : chip.sources)
    sources[figure] = source_text(c, src);
  j["sources"] = sources;
  return j;
}

std::string chip_table(const std::vector<const ChipSpec*>& chips) {
  using A = TextTable::Align;
  TextTable t({"chip", "name", "GPU cores", "bandwidth", "FP16", "max memory", "TB"},
              {A::kLeft, A::kLeft, A::kRight, A::kRight, A::kRight, A::kRight, A::kRight});
  for (const ChipSpec* chip : chips) {
    t.add_row({chip->key, chip->name, chip->gpu_cores ? std::to_string(chip->gpu_cores) : "-",
               fmt::format("{:.0f} GB/s", chip->mem_bandwidth / 1e9),
               fmt::format("{:.1f} TFLOPS", chip->fp16_flops / 1e12),
               format_gib(static_cast<double>(chip->max_memory)),
               chip->thunderbolt ? std::to_string(chip->thunderbolt) : "-"});
  }
  return t.render();
}

// Each machine once, with the chips it comes with.
std::string machine_table(const std::vector<const MachineSpec*>& machines) {
  using A = TextTable::Align;
  TextTable mt({"machine", "name", "Thunderbolt", "ports", "Ethernet", "chips"},
               {A::kLeft, A::kLeft, A::kRight, A::kRight, A::kLeft, A::kLeft});
  for (const MachineSpec* m : machines) {
    mt.add_row({m->key, m->name, m->tb_generation ? fmt::format("TB{}", m->tb_generation) : "-",
                std::to_string(m->tb_interfaces.size()),
                m->ethernet ? link_kind_name(*m->ethernet) : "-", joined(m->chips)});
  }
  return mt.render();
}

std::string chip_detail(const Catalog& c, const ChipSpec& chip) {
  std::string out = fmt::format("{} ({})\n", chip.name, chip.key);
  out += fmt::format("  reported as      {}\n", joined([&] {
                       std::vector<std::string> names{chip.brand};
                       names.insert(names.end(), chip.aliases.begin(), chip.aliases.end());
                       return names;
                     }()));
  auto figure = [&](const char* label, const std::string& value, const char* key) {
    auto it = chip.sources.find(key);
    out += fmt::format("  {:<16} {}{}\n", label, value,
                       it == chip.sources.end() ? "" : "  [" + source_text(c, it->second) + "]");
  };
  figure("bandwidth", fmt::format("{:.0f} GB/s", chip.mem_bandwidth / 1e9), "mem_bandwidth_GBps");
  figure("FP16", fmt::format("{:.1f} TFLOPS", chip.fp16_flops / 1e12), "fp16_tflops");
  if (chip.decode_flops != chip.fp16_flops)
    figure("FP16 at decode", fmt::format("{:.1f} TFLOPS", chip.decode_flops / 1e12),
           "decode_tflops");
  figure("max memory", format_gib(static_cast<double>(chip.max_memory)), "max_memory_GiB");
  if (chip.gpu_cores) out += fmt::format("  {:<16} {}\n", "GPU cores", chip.gpu_cores);
  if (chip.thunderbolt) out += fmt::format("  {:<16} TB{}\n", "Thunderbolt", chip.thunderbolt);
  if (!chip.nvlink.empty()) out += fmt::format("  {:<16} {}\n", "NVLink", chip.nvlink);
  out += fmt::format("  {:<16} {}\n", "machines", joined(machines_of(c, chip.key)));
  return out;
}

std::string machine_detail(const Catalog& c, const MachineSpec& m) {
  std::string out = fmt::format("{} ({})\n", m.name, m.key);
  out += fmt::format("  {:<16} {}\n", "chips", joined(m.chips));
  out += fmt::format("  {:<16} {}\n", "model ids", joined(m.model_ids));
  if (m.tb_generation)
    out += fmt::format("  {:<16} TB{}, ports 1..{} = {}\n", "Thunderbolt", m.tb_generation,
                       m.tb_interfaces.size(), joined(m.tb_interfaces));
  out += fmt::format("  {:<16} {}\n", "Ethernet", m.ethernet ? link_kind_name(*m.ethernet) : "-");
  out += fmt::format("  {:<16} {}\n", "management", m.management_interface);
  std::vector<std::string> sources;
  for (const auto& s : m.sources)
    sources.push_back(source_text(c, s));
  out += fmt::format("  {:<16} {}\n", "sources", joined(sources));
  return out;
}

}  // namespace

std::string catalog_entry(const Catalog& c, const std::string& name, bool json) {
  std::vector<const ChipSpec*> chips;
  for (const auto& chip : c.chips()) {
    if (chip.key == name || chip.key.starts_with(name + "-") || chip.brand == name)
      chips.push_back(&chip);
  }
  const MachineSpec* machine = c.find_machine(name);
  if (chips.empty() && !machine) {
    std::vector<std::string> names;
    for (const auto& chip : c.chips())
      names.push_back(chip.key);
    for (const auto& m : c.machines())
      names.push_back(m.key);
    throw input_error("unknown chip or machine \"{}\"{}; `meshplan chips` lists them all", name,
                      did_you_mean(name, names));
  }
  if (json) {
    ojson list = ojson::array();
    for (const ChipSpec* chip : chips)
      list.push_back(chip_json(c, *chip));
    return list.dump(2) + "\n";
  }
  std::string out;
  for (const ChipSpec* chip : chips)
    out += (out.empty() ? "" : "\n") + chip_detail(c, *chip);
  if (machine) out += (out.empty() ? "" : "\n") + machine_detail(c, *machine);
  return out;
}

std::string catalog_json(const Catalog& c) {
  ojson list = ojson::array();
  for (const auto& chip : c.chips())
    list.push_back(chip_json(c, chip));
  return list.dump(2) + "\n";
}

std::string catalog_table(const Catalog& c) {
  std::vector<const ChipSpec*> chips;
  for (const auto& chip : c.chips())
    chips.push_back(&chip);
  std::vector<const MachineSpec*> machines;
  for (const auto& m : c.machines())
    machines.push_back(&m);
  std::string out = chip_table(chips) + "\n" + machine_table(machines);
  const Efficiency& apple = c.efficiency("apple");
  const Efficiency& nvidia = c.efficiency("nvidia");
  const WiredRule& wired = c.macos_wired_rule();
  out += fmt::format(
      "\nCost-model defaults: Apple GPUs reach {:.0f} % of spec bandwidth and {:.0f} % of FP16 "
      "FLOP/s ({:.0f} % of the decode peak in a decode step), NVIDIA {:.0f} % and {:.0f} % "
      "({:.0f} %);\n"
      "usable memory on macOS = memory - max(6 GiB, 15 %) unless iogpu.wired_limit_mb is set; a "
      "plan "
      "above what macOS wires by default\n({:.0f} % of memory, {:.0f} % up to {}) says which hosts "
      "need sudo sysctl iogpu.wired_limit_mb=N; "
      "{:.1f} ms overhead per pipeline stage ({:.2f} ms on NVIDIA GPUs); a JACCL mesh all-reduce "
      "costs the link's latency and {:.0f} us per peer for every {:.0f} bytes of a token's "
      "activations.\n",
      apple.bandwidth * 100, apple.flops * 100, apple.decode_flops * 100, nvidia.bandwidth * 100,
      nvidia.flops * 100, nvidia.decode_flops * 100, wired.fraction * 100,
      wired.small_fraction * 100, format_gib(wired.small_max_bytes), c.stage_overhead_s() * 1e3,
      c.stage_overhead_s("nvidia") * 1e3, c.jaccl_mesh_peer_s(c.jaccl_mesh_peer_bytes()) * 1e6,
      c.jaccl_mesh_peer_bytes());
  for (const auto& [engine, hop] : c.engine_hops())
    out += fmt::format(
        "Engine {} adds {:g} round trips of the link and {:.2f} ms to every hop between hosts of a "
        "pipeline.\n",
        engine, hop.round_trips, hop.stage_s * 1e3);
  return out;
}

}  // namespace meshplan
