// The facts of a macOS host: sw_vers, sysctl, system_profiler, networksetup, ifconfig and the
// RDMA devices.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "lib/discovery/host_build.hpp"
#include "lib/discovery/host_builder.hpp"
#include "lib/probes/hardware_parser.hpp"
#include "lib/probes/ibv_parser.hpp"
#include "lib/probes/networksetup_parser.hpp"

namespace meshplan {

struct HostBuild::MacProbes {
  MacSysctl sysctl;
  MacHardware hw;
  std::vector<HardwarePort> hardware_ports;
  std::vector<IfconfigInterface> ifaces;
  std::vector<std::string> rdma_devices;
  std::map<std::string, std::string> rdma_states;
  bool have_ifconfig = false;
};

void HostBuild::build_macos() {
  Host& h = r_.host;
  MacProbes m;
  read_macos_probes(m);
  if (r_.failure != HostFailureKind::kNone) return;

  const MachineSpec* machine = set_macos_identity(m);

  // Interfaces: the hardware ports, with addresses and speeds from ifconfig.
  InterfacesByName by_name;
  for (const auto& i : m.ifaces)
    by_name.emplace(i.name, &i);
  add_macos_interfaces(m, by_name);

  // Thunderbolt Bridge.
  if (m.have_ifconfig) {
    if (auto it = by_name.find("bridge0"); it != by_name.end()) {
      ThunderboltBridge b;
      b.up = it->second->up;
      b.members = it->second->members;
      b.ipv4 = it->second->ipv4;
      h.thunderbolt_bridge = b;
    }
  }

  add_thunderbolt_ports(m, machine, by_name);
}

void HostBuild::read_macos_probes(MacProbes& m) {
  Host& h = r_.host;
  if (auto* p = take("sw_vers"))
    parse("sw_vers", [&] {
      SwVers v = parse_sw_vers(p->out);
      h.os.version = v.version;
      h.os.build = v.build;
    });
  if (auto* p = take("sysctl")) parse("sysctl", [&] { m.sysctl = parse_sysctl(p->out); });
  if (auto* p = take("hardware"))
    parse("hardware", [&] { m.hw = parse_system_profiler_hardware(p->out); });
  if (auto* p = take("wired_limit")) h.wired_limit_mb = parse_wired_limit(p->out);
  if (auto* p = take("system_profiler"))
    parse("system_profiler", [&] { r_.buses = parse_thunderbolt(p->out); });
  if (auto* p = take("networksetup"))
    parse("networksetup", [&] { m.hardware_ports = parse_networksetup(p->out); });
  if (auto* p = take("ifconfig"))
    m.have_ifconfig = parse("ifconfig", [&] { m.ifaces = parse_ifconfig(p->out); });
  // No ibv_devices (macOS before 26.2) means no RDMA, not a failure.
  if (const ProbeOutput* p = probes_.find("ibv_devices")) {
    if (p->status == ProbeStatus::kMissing || ibv_reports_no_devices(p->out + p->err)) {
      h.rdma_enabled = false;
    } else if (take("ibv_devices")) {
      m.rdma_devices = parse_ibv_devices(p->out);
      h.rdma_enabled = std::any_of(m.rdma_devices.begin(), m.rdma_devices.end(),
                                   [](const std::string& d) { return d.rfind("rdma_", 0) == 0; });
    }
  }
  if (const ProbeOutput* p = probes_.find("ibv_devinfo")) {
    if (p->status == ProbeStatus::kOk) {
      for (const auto& port : parse_ibv_devinfo(p->out)) {
        if (port.port <= 1 && !m.rdma_states.count(port.device))
          m.rdma_states[port.device] = port.state;
      }
    }
  }
}

// Identity, memory, chip; the catalog's machine for the model id, nullptr when unknown.
const MachineSpec* HostBuild::set_macos_identity(const MacProbes& m) {
  Host& h = r_.host;
  const MacSysctl& sysctl = m.sysctl;
  const MacHardware& hw = m.hw;
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
  return machine;
}

void HostBuild::add_macos_interfaces(const MacProbes& m, const InterfacesByName& by_name) {
  Host& h = r_.host;
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
  for (const auto& p : m.hardware_ports) {
    std::string kind = hardware_port_kind(p.name);
    auto [it, added] = kinds.emplace(p.device, kind);
    if (added)
      order.push_back(p.device);
    else if (kind == "thunderbolt")
      it->second = kind;
  }
  for (const auto& device : order)
    add_interface(device, kinds[device]);
  if (m.hardware_ports.empty()) {
    for (const auto& i : m.ifaces) {
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
}

// Thunderbolt receptacles.
void HostBuild::add_thunderbolt_ports(const MacProbes& m, const MachineSpec* machine,
                                      const InterfacesByName& by_name) {
  Host& h = r_.host;
  std::set<std::string> rdma_set(m.rdma_devices.begin(), m.rdma_devices.end());
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
    port.interface = thunderbolt_device(m.hardware_ports, bus.receptacle_id);
    if (!port.interface.empty() && rdma_set.count("rdma_" + port.interface)) {
      port.rdma_device = "rdma_" + port.interface;
      if (auto it = m.rdma_states.find(port.rdma_device); it != m.rdma_states.end())
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

void HostBuild::resolve_chip(const std::string& brand, int gpu_cores) {
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
void HostBuild::set_usable_memory() {
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

}  // namespace meshplan
