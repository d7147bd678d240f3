#include "lib/cluster/host_figures.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <string>

#include "lib/core/error.hpp"
#include "lib/core/units.hpp"

namespace meshplan {
namespace {

double apply_rule(double memory, const MemoryRule& rule) {
  return memory - std::max(rule.reserve_min_bytes, rule.reserve_fraction * memory);
}

// What one ring step of a decode-sized all-reduce (64 KiB) costs on `g`: how links are ranked,
// since a cross-socket path may move bytes as fast as PCIe yet pay more a step.
double step_cost_s(const HostFigures::GroupLink& g) {
  return g.latency_s + g.step_s + (g.bandwidth > 0 ? 65536 / g.bandwidth : 1);
}

// The slowest link inside each group of consecutive GPUs, from the host's gpu_links matrix (NV#
// counts links of the GPU's NVLink generation; PIX, PXB and PHB cross PCIe; NODE and SYS the
// CPUs). Without a matrix the GPUs are taken to talk over PCIe, the slowest common case. The
// whole host's group is the host's own gpu_link.
void resolve_gpu_links(const Host& host, const ChipSpec* gpu_chip, const Catalog& catalog,
                       HostFigures& f) {
  const bool newer = gpu_chip && (gpu_chip->nvlink == "nvlink4" || gpu_chip->nvlink == "nvlink5");
  const std::string pcie = newer ? "pcie5" : "pcie4";
  auto figures = [&](const std::string& entry, HostFigures::GroupLink& g) {
    g.link = entry;
    const GpuLinkDefaults* d = nullptr;
    if (entry.rfind("NV", 0) == 0 && entry.size() > 2 && gpu_chip && !gpu_chip->nvlink.empty()) {
      d = catalog.gpu_link_defaults(gpu_chip->nvlink);
      if (d) {
        g.bandwidth = d->per_link * std::strtod(entry.c_str() + 2, nullptr);  // never throws
        g.latency_s = d->latency_s;
        g.step_s = d->step_s;
        return;
      }
    }
    d = catalog.gpu_link_defaults(entry == "NODE" || entry == "SYS" ? "sys" : pcie);
    g.bandwidth = d ? d->bandwidth : 0;
    g.latency_s = d ? d->latency_s : 0;
    g.step_s = d ? d->step_s : 0;
  };
  const auto& m = host.gpu_links;
  const int n = static_cast<int>(host.gpus.size());
  std::vector<int> sizes;
  for (int d = 2; d < n; d *= 2)
    if (n % d == 0) sizes.push_back(d);
  sizes.push_back(n);
  for (int d : sizes) {
    HostFigures::GroupLink slowest;
    slowest.tp = d;
    if (m.size() != host.gpus.size()) {
      // No matrix: the part's own fabric (SXM parts sit on NVSwitch by construction), else PCIe.
      if (gpu_chip && !gpu_chip->gpu_fabric.empty()) {
        figures(gpu_chip->gpu_fabric, slowest);
        slowest.link += fmt::format(" (the {}'s fabric: no gpu_links given)", gpu_chip->key);
      } else {
        figures("PHB", slowest);
        slowest.link += " (assumed: no gpu_links)";
      }
    }
    for (int i = 0; i < n && m.size() == host.gpus.size(); ++i) {
      for (int j = i + 1; j < n && j / d == i / d && static_cast<size_t>(j) < m[i].size(); ++j) {
        HostFigures::GroupLink g;
        figures(m[i][j], g);
        // NVLinks down (nvidia-smi nvlink -s): a GPU moves no more than its links that are up.
        if (m[i][j].rfind("NV", 0) == 0)
          for (const Gpu* end :
               {&host.gpus[static_cast<size_t>(i)], &host.gpus[static_cast<size_t>(j)]})
            if (end->nvlinks > 0 && end->nvlink_GBps > 0)
              g.bandwidth = std::min(g.bandwidth, end->nvlinks * end->nvlink_GBps * 1e9);
        if (slowest.link.empty() || step_cost_s(g) > step_cost_s(slowest)) {
          g.tp = d;
          slowest = g;
        }
      }
    }
    if (host.gpu_link_latency_s) slowest.latency_s = *host.gpu_link_latency_s;
    if (host.gpu_link_step_s) slowest.step_s = *host.gpu_link_step_s;
    if (host.gpu_link_bandwidth) slowest.bandwidth = *host.gpu_link_bandwidth;
    f.group_links.push_back(slowest);
  }
  const HostFigures::GroupLink& whole = f.group_links.back();
  f.gpu_link = whole.link;
  f.gpu_link_bandwidth = whole.bandwidth;
  f.gpu_link_latency_s = whole.latency_s;
  f.gpu_link_step_s = whole.step_s;
}

// The bytes a model may use on HOST, and the rule that gave them: the file's usable_memory, the
// wired limit, the GPUs' memory (GPU_USABLE when GPU_FIGURES) or the unified-memory rule.
void resolve_usable_memory(const Host& host, const ChipSpec* chip, bool gpu_figures,
                           double gpu_usable, const Catalog& catalog, HostFigures& f) {
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
}

}  // namespace

double in_host_per_token_s(const HostFigures& h, int64_t hidden_size) {
  if (h.tp <= 1 || !(h.gpu_link_bandwidth > 0)) return 0;
  const double d = h.tp;
  const double bytes = h.activation_bytes * static_cast<double>(hidden_size);
  return 2.0 * 2.0 * (d - 1) * bytes / (d * h.gpu_link_bandwidth);
}

double in_host_collectives_s(const HostFigures& h, int64_t hidden_size, double tokens) {
  if (h.tp <= 1 || !(h.gpu_link_bandwidth > 0)) return 0;
  return 2.0 * (h.gpu_link_latency_s + 2.0 * (h.tp - 1) * h.gpu_link_step_s) +
         tokens * in_host_per_token_s(h, hidden_size);
}

double layer_extra_s(const HostFigures& h, int64_t hidden_size, double tokens, double moe) {
  return h.layer_overhead_s + moe * h.moe_layer_overhead_s +
         in_host_collectives_s(h, hidden_size, tokens);
}

std::vector<int> tensor_degrees(const HostFigures& h, int heads, int kv_heads) {
  std::vector<int> out;
  auto fits = [&](int d) {
    return heads > 0 && heads % d == 0 && (kv_heads <= 0 || kv_heads % d == 0 || d % kv_heads == 0);
  };
  for (auto g = h.group_links.rbegin(); g != h.group_links.rend(); ++g)
    if (fits(g->tp)) out.push_back(g->tp);
  out.push_back(1);
  return out;
}

HostFigures at_tensor_degree(const HostFigures& h, int tp) {
  HostFigures f = h;
  if (tp == h.tp) return f;
  const auto g = std::find_if(h.group_links.begin(), h.group_links.end(),
                              [&](const HostFigures::GroupLink& l) { return l.tp == tp; });
  if (tp != 1 && g == h.group_links.end())
    throw internal_error("host {} has no group of {} GPUs", h.name, tp);
  const double share = static_cast<double>(tp) / h.gpus;
  f.tp = tp;
  f.gpu_stages = h.gpus / tp;
  f.bandwidth *= share;
  f.flops *= share;
  f.prefill_flops *= share;
  f.spec_bandwidth *= share;
  f.spec_flops *= share;
  f.overhead_s = h.overhead_s * f.gpu_stages;
  if (g != h.group_links.end()) {
    f.gpu_link = g->link;
    f.gpu_link_latency_s = g->latency_s;
    f.gpu_link_step_s = g->step_s;
    f.gpu_link_bandwidth = g->bandwidth;
  } else {
    f.gpu_link.clear();
    f.gpu_link_latency_s = f.gpu_link_step_s = f.gpu_link_bandwidth = 0;
  }
  return f;
}

HostFigures host_figures(const Host& host, const Catalog& catalog) {
  HostFigures f;
  f.name = host.name;
  const ChipSpec* chip = host.chip.empty() ? nullptr : catalog.find_chip(host.chip);
  std::string vendor = chip ? chip->vendor : (host.gpus.empty() ? "apple" : "nvidia");
  f.cpu_only = host.gpus.empty() &&
               (host.os.kind == "linux" || (host.os.kind.empty() && chip && vendor != "apple"));

  // Discrete GPUs: the host acts as one stage with the GPUs' summed memory, bandwidth and FLOP/s,
  // its layers split tensor-parallel over them (the in-host all-reduces come on top).
  double gpu_bw = 0, gpu_flops = 0, gpu_decode_flops = 0, gpu_usable = 0;
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
    gpu_decode_flops += gc->decode_flops;
    double mem = g.memory ? static_cast<double>(g.memory) : static_cast<double>(gc->gpu_memory);
    gpu_usable += apply_rule(mem, catalog.discrete_memory_rule());
  }

  // The part the host is built around: its first GPU's chip, else the host's.
  const ChipSpec* part = host.gpus.empty() || host.gpus.front().chip.empty()
                             ? chip
                             : catalog.find_chip(host.gpus.front().chip);
  f.activation_bytes = catalog.activation_bytes();
  if (gpu_figures && host.gpus.size() > 1) {
    f.gpus = f.tp = static_cast<int>(host.gpus.size());
    resolve_gpu_links(host, part, catalog, f);
  }

  if (host.mem_bandwidth)
    f.spec_bandwidth = *host.mem_bandwidth;
  else if (gpu_figures)
    f.spec_bandwidth = gpu_bw;
  else if (chip)
    f.spec_bandwidth = chip->mem_bandwidth;
  // A decode step's products reach for the decode peak (which leaves out matrix units they do
  // not use); a host's own `flops` stands for both.
  double decode_spec = 0;
  if (host.flops) {
    f.spec_flops = decode_spec = *host.flops;
  } else if (gpu_figures) {
    f.spec_flops = gpu_flops;
    decode_spec = gpu_decode_flops;
  } else if (chip) {
    f.spec_flops = chip->fp16_flops;
    decode_spec = chip->decode_flops;
  }
  if (f.spec_bandwidth <= 0 || f.spec_flops <= 0) {
    throw input_error(
        "host {}: its chip is unknown; give a catalog chip (see `meshplan chips`) or both "
        "mem_bandwidth and flops",
        host.name);
  }
  const Efficiency& eff = catalog.efficiency(vendor);
  f.overhead_s = host.stage_overhead_s.value_or(catalog.stage_overhead_s(vendor));
  f.layer_overhead_s = catalog.layer_overhead_s(vendor);
  f.moe_layer_overhead_s = catalog.moe_layer_overhead_s(vendor);
  // A part measured on its own (the HBM parts under an engine's fused kernels) beats the vendor's
  // general figure; a host's own figure beats both. A bandwidth `calibrate` measured is a copy's,
  // which a decode step's reads reach (on H200 the copy gave 4.19 TB/s, the decode layers 4.32).
  double part_efficiency =
      part && part->bandwidth_efficiency > 0 ? part->bandwidth_efficiency : eff.bandwidth;
  if (host.mem_bandwidth && !host.measured.empty()) part_efficiency = 1;
  f.bandwidth_efficiency = host.bandwidth_efficiency.value_or(part_efficiency);
  // A host's measured flops_efficiency holds for both phases; the defaults differ by phase.
  f.flops_efficiency = host.flops_efficiency.value_or(eff.decode_flops);
  f.bandwidth = f.spec_bandwidth * f.bandwidth_efficiency;
  f.flops = decode_spec * f.flops_efficiency;
  f.prefill_flops = f.spec_flops * host.flops_efficiency.value_or(eff.flops);

  resolve_usable_memory(host, chip, gpu_figures, gpu_usable, catalog, f);
  return f;
}

}  // namespace meshplan
