#include "lib/cluster/cluster_reader.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

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
  n.check_keys({"name", "chip", "memory", "uuid", "pci_bus"});
  Gpu g;
  if (auto* v = n.find("name")) g.name = v->as_string();
  if (auto* v = n.find("chip")) {
    g.chip = v->as_string();
    if (!catalog.find_chip(g.chip)) v->fail(unknown_chip(g.chip, catalog));
  }
  if (auto* v = n.find("memory")) g.memory = read_size(*v);
  if (auto* v = n.find("uuid")) g.uuid = v->as_string();
  if (auto* v = n.find("pci_bus")) g.pci_bus = v->as_string();
  return g;
}

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
  n.check_keys({"name", "kind", "ipv4", "prefix", "speed_gbps", "mac", "state", "rdma_device"});
  NetInterface i;
  i.name = read_device_name(n.at("name"));
  if (auto* v = n.find("kind")) {
    i.kind = v->as_string();
    static const std::set<std::string> kinds = {"ethernet", "wifi", "thunderbolt", "bridge",
                                                "other"};
    if (!kinds.count(i.kind))
      v->fail(fmt::format(
          "expected interface kind ethernet, wifi, thunderbolt, bridge or other, got \"{}\"",
          i.kind));
  }
  if (auto* v = n.find("ipv4")) i.ipv4 = read_ipv4(*v, &i.prefix);
  if (auto* v = n.find("prefix")) i.prefix = read_prefix(*v);
  if (auto* v = n.find("speed_gbps")) i.speed_gbps = v->as_number();
  if (auto* v = n.find("mac")) i.mac = v->as_string();
  if (auto* v = n.find("state")) i.state = v->as_string();
  if (auto* v = n.find("rdma_device")) i.rdma_device = read_device_name(*v);
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

// One entry of a GPU link matrix: X, NV<count>, PIX, PXB, PHB, NODE or SYS.
bool gpu_link_entry(std::string_view e) {
  if (e == "X" || e == "PIX" || e == "PXB" || e == "PHB" || e == "NODE" || e == "SYS") return true;
  return e.size() > 2 && e.starts_with("NV") &&
         e.find_first_not_of("0123456789", 2) == std::string_view::npos;
}

// How a host's GPUs are joined: the matrix `nvidia-smi topo -m` prints (gpu_links), or by hand
// `nvlink: 18` (every pair over 18 NVLinks; NVSwitch boxes too) or `gpu_fabric: nvswitch|pcie`.
void read_gpu_links(const DocNode& n, Host& h) {
  const size_t g = h.gpus.size();
  auto uniform = [&](const std::string& entry) {
    h.gpu_links.assign(g, std::vector<std::string>(g, entry));
    for (size_t i = 0; i < g; ++i)
      h.gpu_links[i][i].assign(1, 'X');  // not = "X": GCC 12 warns falsely (-Wrestrict)
  };
  const DocNode* links = n.find("gpu_links");
  const DocNode* nvlink = n.find("nvlink");
  const DocNode* fabric = n.find("gpu_fabric");
  if ((links != nullptr) + (nvlink != nullptr) + (fabric != nullptr) > 1)
    n.fail("give one of gpu_links, nvlink and gpu_fabric");
  const DocNode* given = links ? links : nvlink ? nvlink : fabric;
  if (given && g < 2)
    given->fail(fmt::format("host {} lists {} GPU{}; GPU links need at least 2", h.name, g,
                            g == 1 ? "" : "s"));
  if (nvlink) {
    int64_t count = nvlink->as_int();
    if (count < 1 || count > 64) nvlink->fail("expected the NVLinks per GPU pair, 1 to 64");
    uniform(fmt::format("NV{}", count));
  } else if (fabric) {
    std::string f = fabric->as_string();
    // NVSwitch gives every pair the full NVLink bandwidth of a GPU: 18 links on H100/H200.
    if (f == "nvswitch")
      uniform("NV18");
    else if (f == "pcie")
      uniform("PHB");
    else
      fabric->fail(fmt::format("expected nvswitch or pcie, got \"{}\"", f));
  } else if (links) {
    const auto& rows = links->require_array().items();
    if (rows.size() != g)
      links->fail(fmt::format("expected {} rows, one per GPU, got {}", g, rows.size()));
    for (size_t a = 0; a < g; ++a) {
      const auto& cols = rows[a].require_array().items();
      if (cols.size() != g)
        rows[a].fail(fmt::format("expected {} entries, one per GPU, got {}", g, cols.size()));
      std::vector<std::string> row;
      for (size_t b = 0; b < g; ++b) {
        std::string e = cols[b].as_string();
        if (!gpu_link_entry(e) || (a == b) != (e == "X"))
          cols[b].fail(fmt::format(
              "expected {} (as nvidia-smi topo -m writes it), got \"{}\"",
              a == b ? "X on the diagonal" : "NV<links>, PIX, PXB, PHB, NODE or SYS", e));
        row.push_back(e);
      }
      h.gpu_links.push_back(std::move(row));
    }
  }
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
                "gpu_cores"});
  Host h;
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
  if (auto* v = n.find("memory")) h.memory = read_host_memory(*v, h, catalog, warnings);
  if (auto* v = n.find("usable_memory")) {
    h.usable_memory = read_size(*v);
    if (h.memory > 0 && *h.usable_memory > h.memory)
      v->fail(fmt::format("usable_memory ({}) exceeds memory ({})", format_gib(*h.usable_memory),
                          format_gib(h.memory)));
  }
  if (auto* v = n.find("gpus")) {
    for (const auto& g : v->require_array().items())
      h.gpus.push_back(read_gpu(g, catalog));
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
  if (auto* v = n.find("thunderbolt_bridge")) h.thunderbolt_bridge = read_bridge(*v);
  if (auto* v = n.find("wired_limit_mb")) {
    int64_t w = v->as_int();
    if (w < 0) v->fail(fmt::format("expected a limit in MiB (0 = macOS default), got {}", w));
    h.wired_limit_mb = w;
  }
  if (auto* v = n.find("disk_read")) h.disk_read = read_rate(*v);
  if (auto* v = n.find("mem_bandwidth")) h.mem_bandwidth = read_rate(*v);
  if (auto* v = n.find("flops")) h.flops = read_flops(*v);
  if (auto* v = n.find("bandwidth_efficiency")) h.bandwidth_efficiency = read_fraction(*v);
  if (auto* v = n.find("flops_efficiency")) h.flops_efficiency = read_fraction(*v);
  if (auto* v = n.find("gpu_cores"))
    h.gpu_cores = static_cast<int>(read_positive(*v, "core count"));
  if (h.ports.empty()) {
    if (const MachineSpec* m = host_machine(h, catalog)) h.ports = default_ports(*m);
  }
  return h;
}

// "mac-1" or "mac-1:3" or {host, port} or {host, interface} (a direct network cable).
Endpoint read_endpoint(const DocNode& n, const Cluster& cluster) {
  Endpoint e;
  if (n.is_string()) {
    auto colon = n.text().find(':');
    e.host = n.text().substr(0, colon);
    if (colon != std::string::npos) e.port = n.text().substr(colon + 1);
  } else {
    n.check_keys({"host", "port", "interface"});
    e.host = n.at("host").as_string();
    if (auto* p = n.find("port")) e.port = p->as_string();
    if (auto* i = n.find("interface")) {
      if (!e.port.empty()) i->fail("give a Thunderbolt port or an interface, not both");
      e.interface = read_device_name(*i);
    }
  }
  const Host* h = cluster.find_host(e.host);
  if (!h) n.fail(fmt::format("unknown host \"{}\"; hosts must be listed under hosts", e.host));
  if (!e.port.empty() && !h->ports.empty() && !h->find_port(e.port)) {
    std::string ids;
    for (const auto& p : h->ports)
      ids += (ids.empty() ? "" : ", ") + p.id;
    n.fail(fmt::format("host {} has no Thunderbolt port \"{}\"; its ports are {}", e.host, e.port,
                       ids));
  }
  if (!e.interface.empty() && !h->interfaces.empty() && !h->find_interface(e.interface)) {
    std::string names;
    for (const auto& i : h->interfaces)
      names += (names.empty() ? "" : ", ") + i.name;
    n.fail(fmt::format("host {} has no interface \"{}\"; its interfaces are {}", e.host,
                       e.interface, names));
  }
  return e;
}

void read_host_refs(const DocNode& n, const Cluster& cluster, bool* all,
                    std::vector<std::string>* hosts) {
  if (n.is_string() && n.text() == "all") {
    *all = true;
    return;
  }
  if (!n.is_array())
    n.fail(fmt::format("expected \"all\" or a list of host names, got {}", n.describe_value()));
  for (const auto& item : n.items()) {
    std::string name = item.as_string();
    if (!cluster.find_host(name))
      item.fail(fmt::format("unknown host \"{}\"; hosts must be listed under hosts", name));
    hosts->push_back(name);
  }
}

void read_link(const DocNode& n, const Catalog& catalog, Cluster* cluster) {
  n.require_object();
  if (n.find("topology")) {
    n.check_keys(
        {"topology", "kind", "rdma", "hosts", "center", "subnet", "latency_us", "bandwidth_gbps"});
    GeneratorSpec g;
    const DocNode& t = n.at("topology");
    g.topology = t.as_string();
    static const std::set<std::string> topologies = {"full-mesh", "ring", "chain", "star",
                                                     "switch"};
    if (!topologies.count(g.topology))
      t.fail(fmt::format(
          "unknown topology \"{}\"; expected one of: full-mesh, ring, chain, star, switch",
          g.topology));
    g.kind = read_kind(n.at("kind"));
    if (auto* v = n.find("rdma")) g.rdma = v->as_bool();
    read_host_refs(n.at("hosts"), *cluster, &g.all_hosts, &g.hosts);
    if (auto* v = n.find("center")) {
      if (g.topology != "star") v->fail("center is only for topology: star");
      g.center = v->as_string();
      if (!cluster->find_host(g.center)) v->fail(fmt::format("unknown host \"{}\"", g.center));
    }
    if (auto* v = n.find("subnet")) g.subnet = v->as_string();
    if (auto* v = n.find("latency_us")) g.latency_us = read_positive(*v, "latency in microseconds");
    if (auto* v = n.find("bandwidth_gbps"))
      g.bandwidth_gbps = read_positive(*v, "bandwidth in Gb/s");
    if (g.rdma && g.kind != LinkKind::kTb5)
      n.at("rdma").fail("rdma needs kind tb5 (RDMA over Thunderbolt needs Thunderbolt 5)");
    g.where = n.where().describe();
    g.position = cluster->cables.size();
    cluster->generators.push_back(std::move(g));
  } else if (n.find("a") || n.find("b")) {
    n.check_keys({"a", "b", "kind", "speed_gbps", "rdma", "latency_us", "bandwidth_gbps"});
    Cable c;
    c.a = read_endpoint(n.at("a"), *cluster);
    c.b = read_endpoint(n.at("b"), *cluster);
    if (c.a.host == c.b.host)
      n.at("b").fail(fmt::format("a cable needs two different hosts, got {} twice", c.a.host));
    for (const auto& other : cluster->cables) {
      for (const auto& [end, node] : {std::pair{c.a, "a"}, std::pair{c.b, "b"}}) {
        if (end.port.empty() && end.interface.empty()) continue;
        if (other.a == end || other.b == end)
          n.at(node).fail(fmt::format("{} {} of {} is already used by the cable {} - {}",
                                      end.port.empty() ? "interface" : "port",
                                      end.port.empty() ? end.interface : end.port, end.host,
                                      other.a.host, other.b.host));
      }
    }
    c.kind = read_kind(n.at("kind"));
    c.speed_gbps = catalog.default_speed_gbps(c.kind);
    if (auto* v = n.find("speed_gbps")) c.speed_gbps = read_positive(*v, "speed in Gb/s");
    if (auto* v = n.find("rdma")) c.rdma = v->as_bool();
    // A direct network cable records RDMA (RoCE, InfiniBand) when both of its ends have it.
    bool network_ends = !c.a.interface.empty() && !c.b.interface.empty();
    if (c.rdma && c.kind != LinkKind::kTb5 && !network_ends)
      n.at("rdma").fail(
          "rdma needs kind tb5 (RDMA over Thunderbolt needs Thunderbolt 5) or, for a direct "
          "network cable, an interface at both ends");
    if (auto* v = n.find("latency_us")) c.latency_us = read_positive(*v, "latency in microseconds");
    if (auto* v = n.find("bandwidth_gbps"))
      c.bandwidth_gbps = read_positive(*v, "bandwidth in Gb/s");
    cluster->cables.push_back(std::move(c));
  } else if (n.find("hosts")) {
    n.check_keys({"kind", "hosts", "subnet", "latency_us", "bandwidth_gbps"});
    Network net;
    net.kind = read_kind(n.at("kind"));
    if (is_thunderbolt(net.kind))
      n.at("kind").fail(
          "a shared network cannot be Thunderbolt; use cables or topology: full-mesh");
    read_host_refs(n.at("hosts"), *cluster, &net.all_hosts, &net.hosts);
    if (auto* v = n.find("subnet")) net.subnet = v->as_string();
    if (auto* v = n.find("latency_us"))
      net.latency_us = read_positive(*v, "latency in microseconds");
    if (auto* v = n.find("bandwidth_gbps"))
      net.bandwidth_gbps = read_positive(*v, "bandwidth in Gb/s");
    cluster->networks.push_back(std::move(net));
  } else {
    n.fail(
        "expected a cable {a, b, kind}, a network {kind, hosts} or a generator {topology, kind, "
        "hosts}");
  }
}

}  // namespace

bool valid_host_name(std::string_view name) {
  // Never a leading '-': a name must not read as an ssh option.
  if (name.empty() || name[0] == '-') return false;
  for (char c : name) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-'))
      return false;
  }
  return true;
}

bool valid_ipv4(std::string_view address) {
  int parts = 0;
  size_t i = 0;
  while (i <= address.size()) {
    size_t j = address.find('.', i);
    if (j == std::string_view::npos) j = address.size();
    std::string_view part = address.substr(i, j - i);
    if (part.empty() || part.size() > 3) return false;
    int v = 0;
    for (char c : part) {
      if (!std::isdigit(static_cast<unsigned char>(c))) return false;
      v = v * 10 + (c - '0');
    }
    if (v > 255) return false;
    ++parts;
    i = j + 1;
  }
  return parts == 4;
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

Cluster read_cluster(const DocNode& root, const Catalog& catalog) {
  root.require_object();
  // Another meshplan file where a cluster is expected: say which, rather than "unknown key".
  std::string schema =
      root.find("schema") && root.find("schema")->is_string() ? root.find("schema")->text() : "";
  if (schema == "meshplan.plan/1" ||
      (schema.empty() && root.find("ranks") && root.find("predicted")))
    root.fail(
        "this is a plan file (meshplan.plan/1), not a cluster file; give the cluster file "
        "with -c and the plan with --plan");
  if (schema == "meshplan.check/1" ||
      (schema.empty() && root.find("backends") && root.find("chosen")))
    root.fail(
        "this is a check report (meshplan.check/1), not a cluster file; give the cluster "
        "file that was checked");
  root.check_keys({"schema", "name", "hosts", "links", "findings"});
  Cluster cluster;
  if (auto* s = root.find("schema")) {
    if (s->as_string() != kClusterSchema)
      s->fail(fmt::format("expected schema \"{}\", got \"{}\"", kClusterSchema, s->text()));
  }
  if (auto* n = root.find("name")) cluster.name = n->as_string();
  const DocNode& hosts = root.at("hosts").require_array();
  if (hosts.items().empty()) hosts.fail("expected at least one host");
  if (hosts.items().size() > kMaxClusterHosts)
    hosts.fail(
        fmt::format("expected at most {} hosts, got {}", kMaxClusterHosts, hosts.items().size()));
  cluster.hosts.reserve(hosts.items().size());
  for (const auto& h : hosts.items()) {
    Host host = read_host(h, catalog, cluster.warnings);
    if (cluster.find_host(host.name))
      h.at("name").fail(fmt::format("duplicate host name \"{}\"", host.name));
    cluster.hosts.push_back(std::move(host));
  }
  if (auto* links = root.find("links")) {
    for (const auto& l : links->require_array().items())
      read_link(l, catalog, &cluster);
  }
  if (auto* findings = root.find("findings")) {
    for (const auto& f : findings->require_array().items()) {
      f.check_keys({"kind", "host", "port", "peer", "message"});
      Finding x;
      x.kind = f.at("kind").as_string();
      if (auto* v = f.find("host")) x.host = v->as_string();
      if (auto* v = f.find("port")) x.port = v->as_string();
      if (auto* v = f.find("peer")) x.peer = v->as_string();
      if (auto* v = f.find("message")) x.message = v->as_string();
      cluster.findings.push_back(std::move(x));
    }
  }
  return cluster;
}

}  // namespace meshplan
