#include "lib/discovery/host_builder.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "lib/cluster/cluster_reader.hpp"
#include "lib/cluster/value_readers.hpp"
#include "lib/core/units.hpp"
#include "lib/probes/gpu_topology_parser.hpp"
#include "lib/probes/hardware_parser.hpp"
#include "lib/probes/ibv_parser.hpp"
#include "lib/probes/ifconfig_parser.hpp"
#include "lib/probes/linux_parsers.hpp"
#include "lib/probes/networksetup_parser.hpp"
#include "lib/probes/nvlink_status_parser.hpp"

namespace meshplan {
namespace {

std::string first_line(const std::string& text) {
  std::string t = trim(text);
  return t.substr(0, t.find('\n'));
}

class Builder {
 public:
  Builder(const HostTarget& target, const ProbeSet& probes, const Catalog& catalog)
      : probes_(probes), catalog_(catalog) {
    r_.host.name = target.name;
    if (target.spec() != target.name) r_.host.ssh = target.spec();
  }

  BuiltHost build() {
    std::string os = detect_os();
    if (r_.failure != HostFailureKind::kNone) return std::move(r_);
    if (os == "macos")
      build_macos();
    else
      build_linux();
    return std::move(r_);
  }

 private:
  // A probe failure: fails the host when the probe is essential, else becomes a finding.
  void report(const std::string& name, HostFailureKind kind, const std::string& detail) {
    const ProbeSpec* spec = find_probe_spec(name);
    std::string message = fmt::format("`{}`: {}", spec ? spec->command : name.c_str(), detail);
    if (spec && spec->essential) {
      if (r_.failure == HostFailureKind::kNone) {
        r_.failure = kind;
        r_.failure_message = message;
      }
      return;
    }
    r_.findings.push_back({"probe-failed", r_.host.name, "", "",
                           fmt::format("{}: {}", host_failure_name(kind), message)});
  }

  // The output of a probe that ran and exited 0; nullptr when it is absent or failed (reported).
  const ProbeOutput* take(const std::string& name) {
    const ProbeOutput* p = probes_.find(name);
    if (!p) return nullptr;
    if (p->status == ProbeStatus::kOk) return p;
    if (p->status == ProbeStatus::kMissing) {
      report(name, HostFailureKind::kCommandMissing, "command not found on the host");
    } else {
      std::string why = first_line(p->err);
      report(name, HostFailureKind::kCommandFailed,
             why.empty() ? fmt::format("exited with status {}", p->exit_status)
                         : fmt::format("exited with status {}: {}", p->exit_status, why));
    }
    return nullptr;
  }

  template <typename F>
  bool parse(const std::string& name, F&& f) {
    try {
      f();
      return true;
    } catch (const ProbeParseError& e) {
      report(name, HostFailureKind::kOutputNotUnderstood, e.what());
      return false;
    }
  }

  std::string detect_os() {
    if (const ProbeOutput* p = take("uname")) {
      std::string s = trim(p->out);
      if (s == "Darwin") return r_.host.os.kind = "macos";
      if (s == "Linux") return r_.host.os.kind = "linux";
      report("uname", HostFailureKind::kOutputNotUnderstood,
             fmt::format("expected Darwin or Linux, got \"{}\"", first_line(s)));
      return "";
    }
    if (r_.failure != HostFailureKind::kNone) return "";
    // A replay folder without uname: the probes present say which OS it is.
    for (const auto& spec : probe_specs()) {
      if (!probes_.has(spec.name)) continue;
      if (spec.os == ProbeOs::kMacos) return r_.host.os.kind = "macos";
      if (spec.os == ProbeOs::kLinux) return r_.host.os.kind = "linux";
    }
    r_.failure = HostFailureKind::kOutputNotUnderstood;
    r_.failure_message =
        "cannot tell the operating system: no uname output and no OS-specific probe";
    return "";
  }

  void build_macos() {
    Host& h = r_.host;
    MacSysctl sysctl;
    MacHardware hw;
    std::vector<HardwarePort> hardware_ports;
    std::vector<IfconfigInterface> ifaces;
    std::vector<std::string> rdma_devices;
    std::map<std::string, std::string> rdma_states;
    bool have_ifconfig = false;

    if (auto* p = take("sw_vers"))
      parse("sw_vers", [&] {
        SwVers v = parse_sw_vers(p->out);
        h.os.version = v.version;
        h.os.build = v.build;
      });
    if (auto* p = take("sysctl")) parse("sysctl", [&] { sysctl = parse_sysctl(p->out); });
    if (auto* p = take("hardware"))
      parse("hardware", [&] { hw = parse_system_profiler_hardware(p->out); });
    if (auto* p = take("wired_limit")) h.wired_limit_mb = parse_wired_limit(p->out);
    if (auto* p = take("system_profiler"))
      parse("system_profiler", [&] { r_.buses = parse_thunderbolt(p->out); });
    if (auto* p = take("networksetup"))
      parse("networksetup", [&] { hardware_ports = parse_networksetup(p->out); });
    if (auto* p = take("ifconfig"))
      have_ifconfig = parse("ifconfig", [&] { ifaces = parse_ifconfig(p->out); });
    // No ibv_devices (macOS before 26.2) means no RDMA, not a failure.
    if (const ProbeOutput* p = probes_.find("ibv_devices")) {
      if (p->status == ProbeStatus::kMissing || ibv_reports_no_devices(p->out + p->err)) {
        h.rdma_enabled = false;
      } else if (take("ibv_devices")) {
        rdma_devices = parse_ibv_devices(p->out);
        h.rdma_enabled = std::any_of(rdma_devices.begin(), rdma_devices.end(),
                                     [](const std::string& d) { return d.rfind("rdma_", 0) == 0; });
      }
    }
    if (const ProbeOutput* p = probes_.find("ibv_devinfo")) {
      if (p->status == ProbeStatus::kOk) {
        for (const auto& port : parse_ibv_devinfo(p->out)) {
          if (port.port <= 1 && !rdma_states.count(port.device))
            rdma_states[port.device] = port.state;
        }
      }
    }
    if (r_.failure != HostFailureKind::kNone) return;

    // Identity, memory, chip.
    h.hw_model = !sysctl.model.empty() ? sysctl.model : hw.machine_model;
    h.memory = sysctl.memsize ? sysctl.memsize : hw.memory;
    if (hw.gpu_cores > 0) h.gpu_cores = hw.gpu_cores;
    std::string brand = hw.chip_type.rfind("Apple M", 0) == 0 ? hw.chip_type : sysctl.brand;
    const MachineSpec* machine =
        h.hw_model.empty() ? nullptr : catalog_.machine_for_model_id(h.hw_model);
    if (brand.empty() && h.memory == 0)
      r_.findings.push_back(
          {"unknown-hardware", h.name, "", "",
           "chip and memory unknown (no sysctl or system_profiler hardware output); set chip: and "
           "memory: by hand"});
    else
      resolve_chip(brand, hw.gpu_cores);
    if (machine && (h.chip.empty() || std::find(machine->chips.begin(), machine->chips.end(),
                                                h.chip) != machine->chips.end()))
      h.machine = machine->key;
    if (h.memory == 0 && !brand.empty())
      r_.findings.push_back(
          {"unknown-memory", h.name, "", "", "memory size unknown (no sysctl or hardware output)"});
    set_usable_memory();

    // Interfaces: the hardware ports, with addresses and speeds from ifconfig.
    std::map<std::string, const IfconfigInterface*> by_name;
    for (const auto& i : ifaces)
      by_name.emplace(i.name, &i);
    std::set<std::string> seen;
    auto add_interface = [&](const std::string& name, const std::string& kind) {
      if (!seen.insert(name).second) return;
      NetInterface n;
      n.name = name;
      n.kind = kind;
      if (auto it = by_name.find(name); it != by_name.end()) {
        n.ipv4 = it->second->ipv4;
        n.prefix = n.ipv4.empty() ? 0 : it->second->prefix;
        n.speed_gbps = it->second->speed_gbps;
      }
      h.interfaces.push_back(std::move(n));
    };
    // A device listed twice (an adapter entry for a Thunderbolt port) keeps the Thunderbolt kind.
    std::vector<std::string> order;
    std::map<std::string, std::string> kinds;
    for (const auto& p : hardware_ports) {
      std::string kind = hardware_port_kind(p.name);
      auto [it, added] = kinds.emplace(p.device, kind);
      if (added)
        order.push_back(p.device);
      else if (kind == "thunderbolt")
        it->second = kind;
    }
    for (const auto& device : order)
      add_interface(device, kinds[device]);
    if (hardware_ports.empty()) {
      for (const auto& i : ifaces) {
        if (!i.ipv4.empty() && i.name.rfind("lo", 0) != 0)
          add_interface(i.name, i.name.rfind("bridge", 0) == 0 ? "bridge" : "other");
      }
    }
    for (const char* name : {"en0", "en1"}) {
      const ProbeOutput* p = probes_.find(std::string(name) + "_ip");
      if (!p || p->status != ProbeStatus::kOk) continue;  // no address is not a failure
      std::string addr = parse_getifaddr(p->out);
      if (addr.empty()) continue;
      auto it = std::find_if(h.interfaces.begin(), h.interfaces.end(),
                             [&](const NetInterface& n) { return n.name == name; });
      if (it == h.interfaces.end()) {
        add_interface(name, "");
        it = h.interfaces.end() - 1;
      }
      if (it->ipv4.empty()) it->ipv4 = addr;
    }

    // Thunderbolt Bridge.
    if (have_ifconfig) {
      if (auto it = by_name.find("bridge0"); it != by_name.end()) {
        ThunderboltBridge b;
        b.up = it->second->up;
        b.members = it->second->members;
        b.ipv4 = it->second->ipv4;
        h.thunderbolt_bridge = b;
      }
    }

    // Thunderbolt receptacles.
    std::set<std::string> rdma_set(rdma_devices.begin(), rdma_devices.end());
    int machine_gen = machine ? machine->tb_generation : 0;
    std::set<std::string> port_ids;
    std::vector<TbBus> kept;
    for (auto& bus : r_.buses) {
      if (port_ids.insert(bus.receptacle_id).second) {
        kept.push_back(std::move(bus));
      } else {
        r_.findings.push_back(
            {"duplicate-port", h.name, bus.receptacle_id, "",
             fmt::format("system_profiler lists receptacle {} twice; the second ({}) is left out",
                         bus.receptacle_id, bus.bus)});
      }
    }
    r_.buses = std::move(kept);
    for (const auto& bus : r_.buses) {
      ThunderboltPort port;
      port.id = bus.receptacle_id;
      if (bus.speed_gbps > 40 || bus.max_speed_gbps > 40)
        port.generation = 5;
      else if (machine_gen)
        port.generation = machine_gen;
      else if (bus.speed_gbps > 0 || bus.max_speed_gbps > 0)
        port.generation = 4;
      if (machine_gen > port.generation) port.generation = machine_gen;
      port.speed_gbps = bus.speed_gbps;
      port.interface = thunderbolt_device(hardware_ports, bus.receptacle_id);
      if (!port.interface.empty() && rdma_set.count("rdma_" + port.interface)) {
        port.rdma_device = "rdma_" + port.interface;
        if (auto it = rdma_states.find(port.rdma_device); it != rdma_states.end())
          port.rdma_state = it->second;
      }
      port.domain_uuid = bus.domain_uuid;
      if (auto it = by_name.find(port.interface); !port.interface.empty() && it != by_name.end()) {
        port.ipv4 = it->second->ipv4;
        port.prefix = port.ipv4.empty() ? 0 : it->second->prefix;
      }
      h.ports.push_back(std::move(port));
    }
  }

  void resolve_chip(const std::string& brand, int gpu_cores) {
    Host& h = r_.host;
    if (brand.empty()) {
      r_.findings.push_back({"unknown-chip", h.name, "", "",
                             "chip unknown (no sysctl or hardware output); set chip: by hand"});
      return;
    }
    if (const ChipSpec* c = catalog_.chip_for_brand(brand, gpu_cores)) {
      h.chip = c->key;
      return;
    }
    if (gpu_cores > 0 && catalog_.chip_for_brand(brand, 0)) {
      r_.findings.push_back(
          {"unknown-chip", h.name, "", "",
           fmt::format("{} with {} GPU cores is not in the chip catalog; set chip: by hand", brand,
                       gpu_cores)});
      return;
    }
    r_.findings.push_back(
        {"unknown-chip", h.name, "", "",
         fmt::format("\"{}\" is not in the chip catalog{}; set chip: (or mem_bandwidth and "
                     "flops) by hand",
                     brand, catalog_.suggest_chip(brand))});
  }

  // The bytes a model may use: the wired limit when it is set, else the catalog's unified-memory
  // rule (memory - max(6 GiB, 15 %)).
  void set_usable_memory() {
    Host& h = r_.host;
    if (h.memory == 0) return;
    double memory = static_cast<double>(h.memory);
    double usable = 0;
    if (h.wired_limit_mb && *h.wired_limit_mb > 0) {
      usable = std::min(memory, static_cast<double>(*h.wired_limit_mb) * 1024.0 * 1024.0);
    } else {
      const MemoryRule& rule = catalog_.unified_memory_rule();
      usable = memory - std::max(rule.reserve_min_bytes, rule.reserve_fraction * memory);
    }
    if (usable > 0) h.usable_memory = static_cast<uint64_t>(usable);
  }

  void build_linux() {
    Host& h = r_.host;
    if (auto* p = take("meminfo"))
      parse("meminfo", [&] { h.memory = parse_meminfo_total(p->out); });
    if (auto* p = take("os_release")) {
      OsRelease os = parse_os_release(p->out);
      h.os.version = !os.version_id.empty() ? os.id + " " + os.version_id : os.pretty_name;
      h.os.version = trim(h.os.version);
    }
    // No nvidia-smi means no NVIDIA GPU; a failing one (driver trouble) is worth a finding.
    if (const ProbeOutput* p = probes_.find("nvidia_smi");
        p && p->status != ProbeStatus::kMissing) {
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
                   fmt::format("GPU \"{}\" is not in the chip catalog{}; set its chip: by hand",
                               g.name, catalog_.suggest_chip(g.name))});
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
    if (auto* p = take("ip_addr"))
      parse("ip_addr", [&] {
        for (const auto& i : parse_ip_addr(p->out)) {
          if (i.link_type == "loopback") continue;
          NetInterface n;
          n.name = i.name;
          n.kind = i.name.rfind("wl", 0) == 0 ? "wifi"
                   : i.link_type == "ether"   ? "ethernet"
                                              : "other";
          if (valid_ipv4(i.ipv4) && i.prefix >= 0 && i.prefix <= 32) {
            n.ipv4 = i.ipv4;
            n.prefix = i.prefix;
          }
          n.mac = i.mac;
          n.state = lower_text(i.operstate);
          h.interfaces.push_back(std::move(n));
        }
      });
    add_link_facts();
    if (const ProbeOutput* p = probes_.find("ibv_devinfo");
        p && p->status != ProbeStatus::kMissing) {
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

  // MAC, state and speed from /sys/class/net, RDMA devices from /sys/class/infiniband, and the
  // neighbours each interface sees (for cable matching). /sys wins over `ip -j addr`.
  void add_link_facts() {
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
            if (n.rdma_device == r.device && !(n.speed_gbps > 0) && r.gbps > 0)
              n.speed_gbps = r.gbps;
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

  static std::string lower_text(std::string s) {
    for (char& c : s)
      c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
  }

  const ProbeSet& probes_;
  const Catalog& catalog_;
  BuiltHost r_;
};

}  // namespace

BuiltHost build_host(const HostTarget& target, const ProbeSet& probes, const Catalog& catalog) {
  return Builder(target, probes, catalog).build();
}

}  // namespace meshplan
