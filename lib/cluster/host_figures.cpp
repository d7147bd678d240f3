#include "lib/cluster/host_figures.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "lib/core/error.hpp"
#include "lib/core/units.hpp"

namespace meshplan {
namespace {

double apply_rule(double memory, const MemoryRule& rule) {
  return memory - std::max(rule.reserve_min_bytes, rule.reserve_fraction * memory);
}

}  // namespace

HostFigures host_figures(const Host& host, const Catalog& catalog) {
  HostFigures f;
  f.name = host.name;
  const ChipSpec* chip = host.chip.empty() ? nullptr : catalog.find_chip(host.chip);
  std::string vendor = chip ? chip->vendor : (host.gpus.empty() ? "apple" : "nvidia");

  // Discrete GPUs: the host acts as one stage with the GPUs' summed memory, bandwidth and FLOP/s.
  double gpu_bw = 0, gpu_flops = 0, gpu_usable = 0;
  bool gpu_figures = !host.gpus.empty();
  for (const auto& g : host.gpus) {
    const ChipSpec* gc = !g.chip.empty() ? catalog.find_chip(g.chip) : chip;
    if (!gc) {
      gpu_figures = false;
      break;
    }
    vendor = gc->vendor;
    gpu_bw += gc->mem_bandwidth;
    gpu_flops += gc->fp16_flops;
    double mem = g.memory ? static_cast<double>(g.memory) : static_cast<double>(gc->gpu_memory);
    gpu_usable += apply_rule(mem, catalog.discrete_memory_rule());
  }

  if (host.mem_bandwidth)
    f.spec_bandwidth = *host.mem_bandwidth;
  else if (gpu_figures)
    f.spec_bandwidth = gpu_bw;
  else if (chip)
    f.spec_bandwidth = chip->mem_bandwidth;
  if (host.flops)
    f.spec_flops = *host.flops;
  else if (gpu_figures)
    f.spec_flops = gpu_flops;
  else if (chip)
    f.spec_flops = chip->fp16_flops;
  if (f.spec_bandwidth <= 0 || f.spec_flops <= 0) {
    throw input_error(
        "host {}: its chip is unknown; give a catalog chip (see `meshplan chips`) or both "
        "mem_bandwidth and flops",
        host.name);
  }
  const Efficiency& eff = catalog.efficiency(vendor);
  f.overhead_s = host.stage_overhead_s.value_or(catalog.stage_overhead_s(vendor));
  f.bandwidth_efficiency = host.bandwidth_efficiency.value_or(eff.bandwidth);
  f.flops_efficiency = host.flops_efficiency.value_or(eff.flops);
  f.bandwidth = f.spec_bandwidth * f.bandwidth_efficiency;
  f.flops = f.spec_flops * f.flops_efficiency;

  double memory = static_cast<double>(host.memory);
  if (host.usable_memory) {
    f.usable_bytes = static_cast<double>(*host.usable_memory);
    f.usable_rule = "usable_memory from the cluster file";
  } else if (host.wired_limit_mb && *host.wired_limit_mb > 0) {
    f.usable_bytes = static_cast<double>(*host.wired_limit_mb) * 1024.0 * 1024.0;
    if (memory > 0) f.usable_bytes = std::min(f.usable_bytes, memory);
    f.usable_rule = fmt::format("iogpu.wired_limit_mb = {}", *host.wired_limit_mb);
  } else if (gpu_figures && !(chip && chip->unified_memory)) {
    f.usable_bytes = gpu_usable;
    f.usable_rule = "GPU memory - max(1 GiB, 10 %) per GPU";
  } else if (memory > 0) {
    f.usable_bytes = apply_rule(memory, catalog.unified_memory_rule());
    f.usable_rule = fmt::format("memory {} - max(6 GiB, 15 %)", format_gib(memory));
    if (chip && chip->unified_memory && host.os.kind != "linux")
      f.default_wired_bytes = catalog.macos_wired_rule().limit(memory);
  } else {
    throw input_error("host {}: memory size unknown; give memory (e.g. 512GiB) or usable_memory",
                      host.name);
  }
  if (f.usable_bytes <= 0) {
    // Planned around, with a note, rather than refused: the host may still carry traffic.
    f.usable_bytes = 0;
    f.usable_rule += " leaves nothing";
  }
  return f;
}

}  // namespace meshplan
