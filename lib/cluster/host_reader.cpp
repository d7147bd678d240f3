#include "lib/cluster/host_reader.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <set>

#include "lib/cluster/gpu_links_reader.hpp"
#include "lib/cluster/value_readers.hpp"
#include "lib/core/error.hpp"
#include "lib/core/units.hpp"

namespace meshplan {
namespace {

std::vector<std::string> read_string_list(const DocNode& n) {
  std::vector<std::string> out;
  for (const auto& item : n.require_array().items())
    out.push_back(item.as_string());
  return out;
}

OsInfo read_os(const DocNode& n) {
  OsInfo os;
  if (n.is_string()) {
    os.kind = n.text();
  } else {
    n.check_keys({"kind", "version", "build"});
    if (auto* k = n.find("kind")) os.kind = k->as_string();
    if (auto* v = n.find("version")) os.version = v->as_string();
    if (auto* b = n.find("build")) os.build = b->as_string();
  }
  if (!os.kind.empty() && os.kind != "macos" && os.kind != "linux") {
    const DocNode& at = n.is_string() ? n : n.at("kind");
    at.fail(fmt::format("expected os \"macos\" or \"linux\", got \"{}\"", os.kind));
  }
  return os;
}

// The nearest catalog names when there are any, else every one.
std::string unknown_chip(const std::string& chip, const Catalog& catalog) {
  std::string near = catalog.suggest_chip(chip);
  if (!near.empty())
    return fmt::format("unknown chip \"{}\"{}; `meshplan chips` lists them all", chip, near);
  return fmt::format("unknown chip \"{}\"; expected one of: {}", chip, catalog.chip_keys());
}

std::string unknown_machine(const std::string& machine, const Catalog& catalog) {
  std::string near = catalog.suggest_machine(machine);
  if (!near.empty())
    return fmt::format("unknown machine \"{}\"{}; `meshplan chips` lists them all", machine, near);
  return fmt::format("unknown machine \"{}\"; expected one of: {}", machine,
                     catalog.machine_keys());
}

Gpu read_gpu(const DocNode& n, const Catalog& catalog) {
  n.check_keys({"name", "chip", "memory", "uuid", "pci_bus", "nic", "nvlinks", "nvlink_GBps"});
  Gpu g;
  if (auto* v = n.find("name")) g.name = v->as_string();
  if (auto* v = n.find("chip")) {
    g.chip = v->as_string();
    if (!catalog.find_chip(g.chip)) v->fail(unknown_chip(g.chip, catalog));
  }
  if (auto* v = n.find("memory")) g.memory = read_size(*v);
  if (auto* v = n.find("uuid")) g.uuid = v->as_string();
  if (auto* v = n.find("pci_bus")) g.pci_bus = v->as_string();
  if (auto* v = n.find("nic")) g.nic = read_device_name(*v);
  if (auto* v = n.find("nvlinks")) {
    const int64_t links = v->as_int();
    if (links < 0 || links > 64) v->fail("expected the GPU's NVLinks that are up, 0 to 64");
    g.nvlinks = static_cast<int>(links);
  }
  if (auto* v = n.find("nvlink_GBps")) {
    g.nvlink_GBps = v->as_number();
    if (!(g.nvlink_GBps > 0 && g.nvlink_GBps < 1000))
      v->fail("expected the GB/s of one NVLink, above 0 (nvidia-smi nvlink -s)");
  }
  return g;
}

// The shorthand "8 x h100-sxm": that many GPUs of one catalog chip.
std::vector<Gpu> read_gpu_count(const DocNode& n, const Catalog& catalog) {
  const std::string text = n.text();
  const size_t x = text.find(" x ");
  char* end = nullptr;
  const long count = x == std::string::npos ? 0 : std::strtol(text.c_str(), &end, 10);
  if (x == std::string::npos || end != text.c_str() + x || count < 1 || count > 64)
    n.fail(fmt::format(
        "expected a list of GPUs or \"<count> x <chip>\" (1 to 64, e.g. \"8 x h100-sxm\"), got "
        "\"{}\"",
        text));
  Gpu g;
  g.chip = text.substr(x + 3);
  const ChipSpec* chip = catalog.find_chip(g.chip);
  if (!chip) n.fail(unknown_chip(g.chip, catalog));
  // A GPU that shares its machine's memory (GB10) is the machine's only one.
  if (count > 1 && chip->unified_memory)
    n.fail(
        fmt::format("a {} is the only GPU of its machine; give each machine a host of its own "
                    "and join them with a link (two DGX Sparks: kind 200gbe, rdma: true)",
                    g.chip));
  return std::vector<Gpu>(static_cast<size_t>(count), g);
}

ThunderboltPort read_port(const DocNode& n) {
  n.check_keys({"id", "generation", "speed_gbps", "interface", "rdma_device", "rdma_state",
                "domain_uuid", "ipv4", "prefix"});
  ThunderboltPort p;
  p.id = n.at("id").as_string();
  if (auto* v = n.find("generation")) {
    int64_t g = v->as_int();
    if (g != 3 && g != 4 && g != 5)
      v->fail(fmt::format("expected Thunderbolt generation 3, 4 or 5, got {}", g));
    p.generation = static_cast<int>(g);
  }
  if (auto* v = n.find("speed_gbps")) p.speed_gbps = v->as_number();
  if (auto* v = n.find("interface")) p.interface = read_device_name(*v);
  if (auto* v = n.find("rdma_device")) p.rdma_device = read_device_name(*v);
  if (auto* v = n.find("rdma_state")) p.rdma_state = v->as_string();
  if (auto* v = n.find("domain_uuid")) p.domain_uuid = v->as_string();
  if (auto* v = n.find("ipv4")) p.ipv4 = read_ipv4(*v, &p.prefix);
  if (auto* v = n.find("prefix")) p.prefix = read_prefix(*v);
  return p;
}

NetInterface read_interface(const DocNode& n) {
  n.check_keys(
      {"name", "kind", "ipv4", "prefix", "speed_gbps", "mac", "state", "rdma_device", "mtu"});
  NetInterface i;
  i.name = read_device_name(n.at("name"));
  if (auto* v = n.find("kind")) {
    i.kind = v->as_string();
    static const std::set<std::string> kinds = {"ethernet", "wifi",       "thunderbolt",
                                                "bridge",   "infiniband", "other"};
    if (!kinds.count(i.kind))
      v->fail(fmt::format(
          "expected interface kind ethernet, wifi, thunderbolt, bridge, infiniband or other, got "
          "\"{}\"",
          i.kind));
  }
  if (auto* v = n.find("ipv4")) i.ipv4 = read_ipv4(*v, &i.prefix);
  if (auto* v = n.find("prefix")) i.prefix = read_prefix(*v);
  if (auto* v = n.find("speed_gbps")) i.speed_gbps = v->as_number();
  if (auto* v = n.find("mac")) i.mac = v->as_string();
  if (auto* v = n.find("state")) i.state = v->as_string();
  if (auto* v = n.find("rdma_device")) i.rdma_device = read_device_name(*v);
  if (auto* v = n.find("mtu")) {
    double mtu = v->as_number();
    if (!(mtu >= 68 && mtu <= 1048576) || mtu != static_cast<int>(mtu))
      v->fail(fmt::format("expected an MTU in bytes from 68 to 1048576, got {}", mtu));
    i.mtu = static_cast<int>(mtu);
  }
  return i;
}

ThunderboltBridge read_bridge(const DocNode& n) {
  ThunderboltBridge b;
  if (n.is_string()) {
    if (n.text() != "up" && n.text() != "down")
      n.fail("expected \"up\", \"down\" or an object {up, members}");
    b.up = n.text() == "up";
    return b;
  }
  n.check_keys({"up", "members", "ipv4"});
  if (auto* v = n.find("up")) b.up = v->as_bool();
  if (auto* v = n.find("members")) b.members = read_string_list(*v);
  if (auto* v = n.find("ipv4")) b.ipv4 = read_ipv4(*v, nullptr);
  return b;
}

// A host's memory: a size with a unit. A bare small number is a forgotten unit, not bytes; more
// than the chip can have is a typo; Apple's "512GB" means GiB, which decimal "GB" is not.
uint64_t read_host_memory(const DocNode& v, const Host& h, const Catalog& catalog,
                          std::vector<std::string>& warnings) {
  const bool bare =
      v.is_number() || (v.is_string() && !v.text().empty() &&
                        v.text().find_first_not_of("0123456789. ") == std::string::npos);
  if (bare && v.is_string()) {
    v.fail(fmt::format("expected a size with a unit, e.g. 512GiB, got {}", v.describe_value()));
  }
  uint64_t bytes = read_size(v);
  if (bare && bytes < (uint64_t{1} << 20))
    v.fail(
        fmt::format("expected a size with a unit, e.g. 512GiB, got the bare number {} (that "
                    "would be {} bytes); add a unit",
                    v.text(), v.text()));
  const ChipSpec* chip = h.chip.empty() ? nullptr : catalog.find_chip(h.chip);
  if (chip && chip->unified_memory && chip->max_memory > 0 && bytes > chip->max_memory)
    v.fail(fmt::format("memory {} is more than {} can have (at most {})", format_gib(bytes), h.chip,
                       format_gib(chip->max_memory)));
  if (v.is_string() && chip && chip->unified_memory) {
    std::string t = to_lower(trim(v.text()));
    if (t.size() > 2 && (t.ends_with("gb") || t.ends_with("tb")) && !t.ends_with("ib")) {
      std::string number = trim(t.substr(0, t.size() - 2));
      warnings.push_back(fmt::format(
          "{}: memory \"{}\" is read as decimal units ({}); Apple's \"{}GB\" of unified memory "
          "is {} GiB: write {}{}iB if that is what the machine has",
          v.where().describe(), v.text(), format_gib(bytes), number, number, number,
          t.ends_with("gb") ? "G" : "T"));
    }
  }
  return bytes;
}

// The host's name and what it is: ssh target, os, chip, machine and hardware model.
void read_host_identity(const DocNode& n, const Catalog& catalog, Host& h) {
  const DocNode& name = n.at("name");
  h.name = name.as_string();
  if (!valid_host_name(h.name))
    name.fail(
        fmt::format("expected a host name of letters, digits, '.', '_' or '-' (not starting with "
                    "'-'), got \"{}\"",
                    h.name));
  if (auto* v = n.find("ssh")) h.ssh = v->as_string();
  if (auto* v = n.find("os")) h.os = read_os(*v);
  if (auto* v = n.find("chip")) {
    h.chip = v->as_string();
    if (!catalog.find_chip(h.chip)) v->fail(unknown_chip(h.chip, catalog));
  }
  if (auto* v = n.find("machine")) {
    h.machine = v->as_string();
    const MachineSpec* m = catalog.find_machine(h.machine);
    if (!m) v->fail(unknown_machine(h.machine, catalog));
    if (!h.chip.empty() && std::find(m->chips.begin(), m->chips.end(), h.chip) == m->chips.end())
      v->fail(fmt::format("machine \"{}\" does not come with chip \"{}\"", h.machine, h.chip));
  }
  if (auto* v = n.find("hw_model")) h.hw_model = v->as_string();
}

// Measured or vendor figures that override the catalog's: rates, efficiencies, overheads and
// GPU link timings, with the date they were measured.
void read_host_figures(const DocNode& n, Host& h) {
  if (auto* v = n.find("disk_read")) h.disk_read = read_rate(*v);
  if (auto* v = n.find("mem_bandwidth")) h.mem_bandwidth = read_rate(*v);
  if (auto* v = n.find("flops")) h.flops = read_flops(*v);
  if (auto* v = n.find("bandwidth_efficiency")) h.bandwidth_efficiency = read_fraction(*v);
  if (auto* v = n.find("flops_efficiency")) h.flops_efficiency = read_fraction(*v);
  if (auto* v = n.find("stage_overhead_ms")) {
    double ms = v->as_number();
    if (!(ms >= 0 && ms <= 1000))
      v->fail(fmt::format("expected milliseconds from 0 to 1000, got {}", v->text()));
    h.stage_overhead_s = ms * 1e-3;
  }
  auto microseconds = [](const DocNode& v) {
    const double us = v.as_number();
    if (!(us >= 0 && us <= 1e6))
      v.fail(fmt::format("expected microseconds from 0 to 1000000, got {}", v.text()));
    return us * 1e-6;
  };
  if (auto* v = n.find("gpu_link_latency_us")) h.gpu_link_latency_s = microseconds(*v);
  if (auto* v = n.find("gpu_link_step_us")) h.gpu_link_step_s = microseconds(*v);
  if (auto* v = n.find("gpu_link_bandwidth_gbps"))
    h.gpu_link_bandwidth = read_positive(*v, "bandwidth in Gb/s") * 1e9 / 8;
  if (auto* v = n.find("gpu_cores"))
    h.gpu_cores = static_cast<int>(read_positive(*v, "core count"));
  if (auto* v = n.find("measured")) {
    h.measured = read_date(*v);
    if (!h.mem_bandwidth && !h.flops && !h.stage_overhead_s && !h.gpu_link_latency_s)
      v->fail(
          "measured needs mem_bandwidth, flops, stage_overhead_ms or gpu_link_latency_us beside "
          "it");
  }
}

}  // namespace

// An interface or RDMA device name goes into commands (quoted); one that starts with '-' would
// still be read as an option, and control characters are never part of a device name.
std::string read_device_name(const DocNode& n) {
  std::string name = n.as_string();
  bool control = false;
  for (char c : name)
    control = control || static_cast<unsigned char>(c) < 0x20 || c == 0x7f;
  if (name.empty() || name[0] == '-' || control)
    n.fail(
        fmt::format("expected a device name such as \"en2\" (not empty, not starting with "
                    "'-', no control characters), got {}",
                    n.describe_value()));
  return name;
}

Host read_host(const DocNode& n, const Catalog& catalog, std::vector<std::string>& warnings) {
  n.check_keys({"name",
                "ssh",
                "os",
                "chip",
                "machine",
                "hw_model",
                "memory",
                "usable_memory",
                "gpus",
                "gpu_links",
                "nvlink",
                "gpu_fabric",
                "ports",
                "interfaces",
                "rdma_enabled",
                "thunderbolt_bridge",
                "wired_limit_mb",
                "disk_read",
                "mem_bandwidth",
                "flops",
                "bandwidth_efficiency",
                "flops_efficiency",
                "stage_overhead_ms",
                "gpu_link_latency_us",
                "gpu_link_step_us",
                "gpu_link_bandwidth_gbps",
                "gpu_cores",
                "measured",
                "slurm"});
  Host h;
  read_host_identity(n, catalog, h);
  if (auto* v = n.find("memory")) h.memory = read_host_memory(*v, h, catalog, warnings);
  if (auto* v = n.find("usable_memory")) {
    h.usable_memory = read_size(*v);
    if (h.memory > 0 && *h.usable_memory > h.memory)
      v->fail(fmt::format("usable_memory ({}) exceeds memory ({})", format_gib(*h.usable_memory),
                          format_gib(h.memory)));
  }
  if (auto* v = n.find("gpus")) {
    if (v->is_string()) {
      h.gpus = read_gpu_count(*v, catalog);
    } else {
      for (const auto& g : v->require_array().items())
        h.gpus.push_back(read_gpu(g, catalog));
    }
  }
  read_gpu_links(n, h);
  if (auto* v = n.find("ports")) {
    std::set<std::string> ids;
    for (const auto& p : v->require_array().items()) {
      h.ports.push_back(read_port(p));
      if (!ids.insert(h.ports.back().id).second)
        p.at("id").fail(
            fmt::format("duplicate port id \"{}\" on host {}", h.ports.back().id, h.name));
    }
  }
  if (auto* v = n.find("interfaces")) {
    for (const auto& i : v->require_array().items())
      h.interfaces.push_back(read_interface(i));
  }
  if (auto* v = n.find("rdma_enabled")) h.rdma_enabled = v->as_bool();
  if (auto* v = n.find("slurm")) h.slurm = v->as_bool();
  if (auto* v = n.find("thunderbolt_bridge")) h.thunderbolt_bridge = read_bridge(*v);
  if (auto* v = n.find("wired_limit_mb")) {
    int64_t w = v->as_int();
    if (w < 0) v->fail(fmt::format("expected a limit in MiB (0 = macOS default), got {}", w));
    h.wired_limit_mb = w;
  }
  read_host_figures(n, h);
  if (h.ports.empty()) {
    if (const MachineSpec* m = host_machine(h, catalog)) h.ports = default_ports(*m);
  }
  return h;
}

bool valid_host_name(std::string_view name) {
  // Never a leading '-': a name must not read as an ssh option.
  if (name.empty() || name[0] == '-') return false;
  for (char c : name) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-'))
      return false;
  }
  return true;
}

std::vector<ThunderboltPort> default_ports(const MachineSpec& machine) {
  std::vector<ThunderboltPort> ports;
  for (size_t i = 0; i < machine.tb_interfaces.size(); ++i) {
    ThunderboltPort p;
    p.id = std::to_string(i + 1);
    p.generation = machine.tb_generation;
    p.interface = machine.tb_interfaces[i];
    if (machine.tb_generation >= 5) p.rdma_device = "rdma_" + p.interface;
    ports.push_back(std::move(p));
  }
  return ports;
}

const MachineSpec* host_machine(const Host& host, const Catalog& catalog) {
  if (!host.machine.empty()) return catalog.find_machine(host.machine);
  if (!host.hw_model.empty()) {
    if (const MachineSpec* m = catalog.machine_for_model_id(host.hw_model)) return m;
  }
  if (!host.chip.empty()) return catalog.default_machine(host.chip);
  return nullptr;
}

}  // namespace meshplan
