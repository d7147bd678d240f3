// The facts of a Linux host: /proc/meminfo, os-release, nvidia-smi, `ip -j addr`, /sys and the
// RDMA ports.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "lib/cluster/value_readers.hpp"
#include "lib/core/units.hpp"
#include "lib/discovery/host_build.hpp"
#include "lib/discovery/host_builder.hpp"
#include "lib/probes/gpu_topology_parser.hpp"
#include "lib/probes/ibv_parser.hpp"
#include "lib/probes/linux_parsers.hpp"
#include "lib/probes/nvlink_status_parser.hpp"

namespace meshplan {
namespace {

std::string lower_text(std::string s) {
  for (char& c : s)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

void HostBuild::build_linux() {
  Host& h = r_.host;
  if (auto* p = take("meminfo")) parse("meminfo", [&] { h.memory = parse_meminfo_total(p->out); });
  if (auto* p = take("os_release")) {
    OsRelease os = parse_os_release(p->out);
    h.os.version = !os.version_id.empty() ? os.id + " " + os.version_id : os.pretty_name;
    h.os.version = trim(h.os.version);
  }
  // No nvidia-smi means no NVIDIA GPU; a failing one (driver trouble) is worth a finding.
  if (const ProbeOutput* p = probes_.find("nvidia_smi"); p && p->status != ProbeStatus::kMissing)
    add_nvidia_gpus(p);
  add_ip_interfaces();
  add_link_facts();
  if (const ProbeOutput* p = probes_.find("ibv_devinfo"); p && p->status != ProbeStatus::kMissing) {
    if (ibv_reports_no_devices(p->out + p->err)) {
      h.rdma_enabled = false;
    } else if (take("ibv_devinfo")) {
      auto ports = parse_ibv_devinfo(p->out);
      h.rdma_enabled = std::any_of(ports.begin(), ports.end(),
                                   [](const IbvPort& x) { return x.state == "PORT_ACTIVE"; });
    }
  }
  if (r_.failure == HostFailureKind::kNone && h.memory == 0)
    r_.findings.push_back(
        {"unknown-memory", h.name, "", "", "memory size unknown (no /proc/meminfo output)"});
}

// The GPUs nvidia-smi (P) lists, their link matrix and their NVLinks.
void HostBuild::add_nvidia_gpus(const ProbeOutput* p) {
  Host& h = r_.host;
  if (take("nvidia_smi"))
    parse("nvidia_smi", [&] {
      for (const auto& g : parse_nvidia_smi(p->out)) {
        Gpu gpu;
        gpu.name = g.name;
        bool seen = std::any_of(h.gpus.begin(), h.gpus.end(),
                                [&](const Gpu& o) { return o.name == g.name; });
        if (const ChipSpec* c = catalog_.chip_for_brand(g.name, 0))
          gpu.chip = c->key;
        else if (!seen)  // one finding per kind of GPU, not per GPU
          r_.findings.push_back(
              {"unknown-chip", h.name, "", "",
               fmt::format("GPU \"{}\" is not in the chip catalog{}; set its chip: by hand", g.name,
                           catalog_.suggest_chip(g.name))});
        gpu.memory = g.memory;
        gpu.uuid = g.uuid;
        gpu.pci_bus = g.pci_bus;
        h.gpus.push_back(std::move(gpu));
      }
    });
  // The GPU link matrix, when it describes the GPUs nvidia-smi listed.
  if (const ProbeOutput* t = probes_.find("nvidia_topo"); t && h.gpus.size() > 1) {
    if (take("nvidia_topo"))
      parse("nvidia_topo", [&] {
        GpuTopology topo = parse_gpu_topology(t->out);
        if (topo.gpus.size() != h.gpus.size()) return;
        h.gpu_links = topo.links;
        // NIC affinity: the NIC each GPU reaches over the shortest PCIe path.
        for (size_t g = 0; g < h.gpus.size(); ++g)
          if (int n = topo.nearest_nic(g); n >= 0) h.gpus[g].nic = topo.nics[n];
      });
  }
  // NVLinks that are up: a GPU with links down is priced at what it has left, and said.
  if (auto* p = take("nvidia_nvlink"))
    parse("nvidia_nvlink", [&] {
      for (const GpuNvlinks& l : parse_nvlink_status(p->out)) {
        if (l.gpu < 0 || static_cast<size_t>(l.gpu) >= h.gpus.size() || l.up + l.down == 0)
          continue;
        Gpu& gpu = h.gpus[static_cast<size_t>(l.gpu)];
        gpu.nvlinks = l.up;
        gpu.nvlink_GBps = l.rate_GBps;
        if (l.down > 0)
          r_.findings.push_back(
              {"nvlink-down", h.name, "", "",
               fmt::format("gpu{} has {} of its {} NVLinks down (nvidia-smi nvlink -s); it is "
                           "planned with the {} that are up",
                           l.gpu, l.down, l.up + l.down, l.up)});
      }
    });
}

void HostBuild::add_ip_interfaces() {
  Host& h = r_.host;
  if (auto* p = take("ip_addr"))
    parse("ip_addr", [&] {
      for (const auto& i : parse_ip_addr(p->out)) {
        if (i.link_type == "loopback") continue;
        NetInterface n;
        n.name = i.name;
        n.kind = i.name.rfind("wl", 0) == 0    ? "wifi"
                 : i.link_type == "ether"      ? "ethernet"
                 : i.link_type == "infiniband" ? "infiniband"  // IPoIB (ib0)
                                               : "other";
        if (valid_ipv4(i.ipv4) && i.prefix >= 0 && i.prefix <= 32) {
          n.ipv4 = i.ipv4;
          n.prefix = i.prefix;
        }
        n.mac = i.mac;
        n.mtu = i.mtu;
        n.state = lower_text(i.operstate);
        h.interfaces.push_back(std::move(n));
      }
    });
}

// MAC, state and speed from /sys/class/net, RDMA devices from /sys/class/infiniband, and the
// neighbours each interface sees (for cable matching). /sys wins over `ip -j addr`.
void HostBuild::add_link_facts() {
  Host& h = r_.host;
  auto find = [&](const std::string& name) -> NetInterface* {
    for (auto& n : h.interfaces)
      if (n.name == name) return &n;
    return nullptr;
  };
  if (auto* p = take("sys_net"))
    parse("sys_net", [&] {
      for (const auto& s : parse_sys_net(p->out)) {
        NetInterface* n = find(s.name);
        if (!n) continue;  // loopback, or not in `ip -j addr`
        if (!s.mac.empty()) n->mac = s.mac;
        if (!s.operstate.empty()) n->state = s.operstate;
        if (s.speed_mbps > 0) n->speed_gbps = static_cast<double>(s.speed_mbps) / 1000.0;
      }
    });
  if (auto* p = take("rdma_net"))
    parse("rdma_net", [&] {
      for (const auto& r : parse_rdma_net(p->out)) {
        if (NetInterface* n = find(r.interface)) n->rdma_device = r.device;
      }
    });
  if (auto* p = take("rdma_rate"))
    parse("rdma_rate", [&] {
      // The RDMA port's rate where the interface reports no speed (IPoIB, a down link).
      for (const auto& r : parse_rdma_rates(p->out))
        for (auto& n : h.interfaces)
          if (n.rdma_device == r.device && !(n.speed_gbps > 0) && r.gbps > 0) n.speed_gbps = r.gbps;
    });
  if (auto* p = take("neigh"))
    parse("neigh", [&] {
      for (const auto& nb : parse_ip_neigh(p->out)) {
        auto it = std::find_if(r_.sightings.begin(), r_.sightings.end(),
                               [&](const NetSighting& x) { return x.interface == nb.interface; });
        if (it == r_.sightings.end()) {
          r_.sightings.push_back({nb.interface, {}});
          it = r_.sightings.end() - 1;
        }
        if (std::find(it->macs.begin(), it->macs.end(), nb.mac) == it->macs.end())
          it->macs.push_back(nb.mac);
      }
    });
}

}  // namespace meshplan
