#include "solvers/advice_changes.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <set>

#include "lib/cluster/host_reader.hpp"
#include "lib/cluster/link_graph.hpp"
#include "lib/core/units.hpp"
#include "lib/plan/engines.hpp"
#include "topologies/tb_fabric.hpp"

namespace meshplan {
namespace {

// "96 GiB", as machines are sold.
std::string gib_text(uint64_t bytes) {
  return bytes % (1ull << 30) == 0 ? fmt::format("{} GiB", bytes >> 30)
                                   : format_gib(static_cast<double>(bytes));
}

bool is_mac(const Host& h, const Catalog& catalog) {
  return host_platform(h, catalog) == Platform::kMac;
}

// The lowest free port of a host in the scenario, Thunderbolt 5 first; empty id when none.
const FabricPort* free_port(const TbFabric& fabric, size_t host) {
  auto tb5 = fabric.free_ports(host, true);
  if (!tb5.empty()) return tb5.front();
  auto any = fabric.free_ports(host, false);
  return any.empty() ? nullptr : any.front();
}

std::string port_text(const std::string& host, const FabricPort& p) {
  return p.interface.empty() ? fmt::format("{} port {}", host, p.id)
                             : fmt::format("{} port {} ({})", host, p.id, p.interface);
}

LinkKind tb_kind(int gen_a, int gen_b) {
  int g = std::min(gen_a == 0 ? 5 : gen_a, gen_b == 0 ? 5 : gen_b);
  return g >= 5 ? LinkKind::kTb5 : g == 4 ? LinkKind::kTb4 : LinkKind::kTb3;
}

bool rdma_on(const Cluster& c, const std::string& a, const std::string& b) {
  const Host* x = c.find_host(a);
  const Host* y = c.find_host(b);
  return x && y && x->rdma_enabled.value_or(false) && y->rdma_enabled.value_or(false);
}

// Plugs a Thunderbolt cable between a and b on their lowest free ports; "" or why not.
std::string plug(Scenario& s, const Catalog& catalog, const std::string& a, const std::string& b,
                 const std::string& verb) {
  LinkGraph graph(s.cluster, catalog);
  TbFabric fabric(s.cluster, graph);
  int ia = s.cluster.host_index(a), ib = s.cluster.host_index(b);
  if (ia < 0 || ib < 0) return fmt::format("{} or {} is not in the cluster", a, b);
  const FabricPort* pa = free_port(fabric, static_cast<size_t>(ia));
  const FabricPort* pb = free_port(fabric, static_cast<size_t>(ib));
  if (!pa || !pb) return fmt::format("{} has no free Thunderbolt port", pa ? b : a);
  Cable c;
  c.a = {a, pa->id};
  c.b = {b, pb->id};
  c.kind = tb_kind(pa->generation, pb->generation);
  c.speed_gbps = catalog.default_speed_gbps(c.kind);
  c.rdma = c.kind == LinkKind::kTb5 && rdma_on(s.cluster, a, b);
  const char* kind_text = c.kind == LinkKind::kTb5   ? "Thunderbolt 5"
                          : c.kind == LinkKind::kTb4 ? "Thunderbolt 4"
                                                     : "Thunderbolt 3";
  s.steps.push_back(fmt::format("{} {} to {} with a {} cable", verb, port_text(a, *pa),
                                port_text(b, *pb), kind_text));
  s.cables.push_back({a, pa->id, pa->interface, b, pb->id, pb->interface, link_kind_name(c.kind)});
  s.cluster.cables.push_back(std::move(c));
  return "";
}

void fail(Scenario& s, const std::string& why) {
  if (s.invalid.empty()) s.invalid = why;
}

// Index of the Thunderbolt cable between the two ends, or -1.
int find_cable(const Cluster& c, const Endpoint& a, const Endpoint& b) {
  for (size_t i = 0; i < c.cables.size(); ++i) {
    const Cable& k = c.cables[i];
    if ((k.a == a && k.b == b) || (k.a == b && k.b == a)) return static_cast<int>(i);
  }
  return -1;
}

// Interfaces of a Linux host no cable and no address uses, fastest first.
std::vector<const NetInterface*> spare_interfaces(const Cluster& c, const Host& h) {
  std::set<std::string> used;
  for (const Cable& k : c.cables)
    for (const Endpoint* e : {&k.a, &k.b})
      if (e->host == h.name && !e->interface.empty()) used.insert(e->interface);
  std::vector<const NetInterface*> out;
  for (const NetInterface& i : h.interfaces)
    if (i.kind == "ethernet" && i.speed_gbps > 0 && i.ipv4.empty() && !used.count(i.name))
      out.push_back(&i);
  std::stable_sort(out.begin(), out.end(),
                   [](auto* x, auto* y) { return x->speed_gbps > y->speed_gbps; });
  return out;
}

void add_cable_changes(const ChangeSources& in, const TbFabric& fabric, std::vector<Change>& out) {
  const Cluster& c = in.cluster;
  for (size_t a = 0; a < c.hosts.size(); ++a)
    for (size_t b = a + 1; b < c.hosts.size(); ++b) {
      const Host& ha = c.hosts[a];
      const Host& hb = c.hosts[b];
      if (!is_mac(ha, in.catalog) || !is_mac(hb, in.catalog) || fabric.count(a, b) > 0) continue;
      const bool free_a = free_port(fabric, a) != nullptr, free_b = free_port(fabric, b) != nullptr;
      if (free_a && free_b) {
        out.push_back({"cable",
                       fmt::format("cable {} - {}", ha.name, hb.name),
                       {},
                       [x = ha.name, y = hb.name](Scenario& s, const Catalog& cat) {
                         std::string why = plug(s, cat, x, y, "connect");
                         if (!why.empty()) fail(s, why);
                       }});
        continue;
      }
      // One end is full: move one of its cables (from a host that keeps another path) here.
      if (free_a == free_b) continue;
      const size_t full = free_a ? b : a, other = free_a ? a : b;
      for (const FabricCable& k : fabric.cables()) {
        if (k.lo.host != full && k.hi.host != full) continue;
        const FabricEnd& far = k.other(full);
        const FabricEnd& near = k.end(full);
        const Cable& cable = c.cables[k.index];
        std::string far_name = c.hosts[far.host].name;
        out.push_back({"move-cable",
                       fmt::format("move cable {} - {} to {} - {}", c.hosts[full].name, far_name,
                                   c.hosts[full].name, c.hosts[other].name),
                       {fmt::format("cable {}", k.index)},
                       [cable, near_port = near.port, far_name, full_name = c.hosts[full].name,
                        other_name = c.hosts[other].name](Scenario& s, const Catalog& cat) {
                         int i = find_cable(s.cluster, cable.a, cable.b);
                         if (i < 0) return fail(s, "the cable to move is gone");
                         s.cluster.cables.erase(s.cluster.cables.begin() + i);
                         s.steps.push_back(fmt::format("unplug the cable between {} port {} and {}",
                                                       full_name, near_port, far_name));
                         std::string why = plug(s, cat, full_name, other_name, "plug it into");
                         if (!why.empty()) fail(s, why);
                       }});
      }
    }
}

// Thunderbolt 4 cables (or ports) between Thunderbolt 5 hosts.
void upgrade_changes(const ChangeSources& in, const TbFabric& fabric, std::vector<Change>& out) {
  const Cluster& c = in.cluster;
  for (const FabricCable& k : fabric.cables()) {
    if (k.kind == LinkKind::kTb5) continue;
    const bool lo5 = k.lo.generation == 0 || k.lo.generation >= 5;
    const bool hi5 = k.hi.generation == 0 || k.hi.generation >= 5;
    const std::string a = c.hosts[k.lo.host].name, b = c.hosts[k.hi.host].name;
    if (!(lo5 || fabric.tb5_port_count(k.lo.host) > 0) ||
        !(hi5 || fabric.tb5_port_count(k.hi.host) > 0))
      continue;  // a host without Thunderbolt 5: no cable makes it faster
    const Cable cable = c.cables[k.index];
    out.push_back(
        {"tb5-cable",
         fmt::format("Thunderbolt 5 cable {} - {}", a, b),
         {fmt::format("cable {}", k.index)},
         [cable, lo5, hi5, a, b](Scenario& s, const Catalog& cat) {
           int i = find_cable(s.cluster, cable.a, cable.b);
           if (i < 0) return fail(s, "the cable to replace is gone");
           if (lo5 && hi5) {
             Cable& k = s.cluster.cables[static_cast<size_t>(i)];
             k.kind = LinkKind::kTb5;
             k.speed_gbps = cat.default_speed_gbps(k.kind);
             k.rdma = rdma_on(s.cluster, a, b);
             s.steps.push_back(fmt::format(
                 "replace the {} cable between {} port {} and {} port {} with a Thunderbolt 5 "
                 "cable",
                 link_kind_name(cable.kind), cable.a.host, cable.a.port, cable.b.host,
                 cable.b.port));
             s.cables.push_back(
                 {cable.a.host, cable.a.port, "", cable.b.host, cable.b.port, "", "tb5"});
             return;
           }
           // A Thunderbolt 4 port at an end: the new cable goes to a Thunderbolt 5 port.
           s.cluster.cables.erase(s.cluster.cables.begin() + i);
           s.steps.push_back(fmt::format("unplug the {} cable between {} port {} and {} port {}",
                                         link_kind_name(cable.kind), cable.a.host, cable.a.port,
                                         cable.b.host, cable.b.port));
           std::string why = plug(s, cat, a, b, "connect");
           if (why.empty() && s.cluster.cables.back().kind != LinkKind::kTb5)
             why = "no free Thunderbolt 5 port";
           if (!why.empty()) fail(s, why);
         }});
  }
}

// Direct cables between Linux hosts on spare interfaces, at the slower interface's speed.
void network_cable_changes(const ChangeSources& in, std::vector<Change>& out) {
  const Cluster& c = in.cluster;
  for (size_t a = 0; a < c.hosts.size(); ++a)
    for (size_t b = a + 1; b < c.hosts.size(); ++b) {
      const Host& ha = c.hosts[a];
      const Host& hb = c.hosts[b];
      if (ha.os.kind != "linux" || hb.os.kind != "linux") continue;
      bool cabled = false;
      for (const Cable& k : c.cables)
        cabled = cabled || (k.a.host == ha.name && k.b.host == hb.name) ||
                 (k.a.host == hb.name && k.b.host == ha.name);
      if (cabled || spare_interfaces(c, ha).empty() || spare_interfaces(c, hb).empty()) continue;
      out.push_back(
          {"network-cable",
           fmt::format("network cable {} - {}", ha.name, hb.name),
           {},
           [x = ha.name, y = hb.name](Scenario& s, const Catalog& cat) {
             const Host& hx = *s.cluster.find_host(x);
             const Host& hy = *s.cluster.find_host(y);
             auto sx = spare_interfaces(s.cluster, hx), sy = spare_interfaces(s.cluster, hy);
             if (sx.empty() || sy.empty()) return fail(s, "no spare interface left");
             Cable k;
             k.a = {x, "", sx.front()->name};
             k.b = {y, "", sy.front()->name};
             k.kind =
                 ethernet_kind_for_speed(std::min(sx.front()->speed_gbps, sy.front()->speed_gbps));
             k.speed_gbps = cat.default_speed_gbps(k.kind);
             k.rdma = !sx.front()->rdma_device.empty() && !sy.front()->rdma_device.empty();
             s.steps.push_back(fmt::format("connect {} {} to {} {} with a {} cable", x,
                                           k.a.interface, y, k.b.interface,
                                           link_kind_name(k.kind)));
             s.cables.push_back(
                 {x, "", k.a.interface, y, "", k.b.interface, link_kind_name(k.kind)});
             s.cluster.cables.push_back(std::move(k));
           }});
    }
}

// Macs that could run RDMA over their Thunderbolt 5 cables but do not say so.
void host_setting_changes(const ChangeSources& in, const TbFabric& fabric,
                          std::vector<Change>& out) {
  const Cluster& c = in.cluster;
  std::vector<std::string> rdma, bridge, wired;
  for (size_t h = 0; h < c.hosts.size(); ++h) {
    const Host& host = c.hosts[h];
    if (!is_mac(host, in.catalog)) continue;
    if (!host.rdma_enabled.value_or(false) && fabric.tb5_port_count(h) > 0)
      rdma.push_back(host.name);
    if (host.thunderbolt_bridge && host.thunderbolt_bridge->up) bridge.push_back(host.name);
    if (host.wired_limit_mb && !host.usable_memory && host.memory > 0) {
      double rule = static_cast<double>(host.memory) -
                    std::max(6.0 * (1ull << 30), 0.15 * static_cast<double>(host.memory));
      if (static_cast<double>(*host.wired_limit_mb) * (1 << 20) < rule) wired.push_back(host.name);
    }
  }
  if (!rdma.empty())
    out.push_back({"rdma",
                   fmt::format("enable RDMA on {}", fmt::join(rdma, ", ")),
                   {"rdma"},
                   [rdma](Scenario& s, const Catalog&) {
                     for (const auto& name : rdma) {
                       Host& h = *s.cluster.find_host(name);
                       if (h.os.kind == "macos" && !h.os.version.empty()) {
                         int major = std::atoi(h.os.version.c_str());
                         auto dot = h.os.version.find('.');
                         int minor = dot == std::string::npos
                                         ? 0
                                         : std::atoi(h.os.version.c_str() + dot + 1);
                         if (major < 26 || (major == 26 && minor < 2)) {
                           s.steps.push_back(fmt::format("update {} to macOS 26.2 or later", name));
                           h.os.version = "26.2";
                           h.os.build.clear();
                         }
                       }
                       h.rdma_enabled = true;
                     }
                     for (Cable& k : s.cluster.cables)
                       if (k.kind == LinkKind::kTb5 && rdma_on(s.cluster, k.a.host, k.b.host))
                         k.rdma = true;
                     s.steps.push_back(fmt::format(
                         "enable RDMA on {} (in macOS Recovery: `rdma_ctl enable`, then restart)",
                         fmt::join(rdma, ", ")));
                   }});
  if (!bridge.empty())
    out.push_back({"bridge",
                   fmt::format("Thunderbolt Bridge down on {}", fmt::join(bridge, ", ")),
                   {"bridge"},
                   [bridge](Scenario& s, const Catalog&) {
                     for (const auto& name : bridge)
                       s.cluster.find_host(name)->thunderbolt_bridge->up = false;
                     s.steps.push_back(fmt::format(
                         "take bridge0 down on {} (`sudo ifconfig bridge0 down`; `meshplan "
                         "setup` does it)",
                         fmt::join(bridge, ", ")));
                   }});
  if (!wired.empty())
    out.push_back({"wired-limit",
                   fmt::format("raise the GPU wired limit on {}", fmt::join(wired, ", ")),
                   {"wired"},
                   [wired](Scenario& s, const Catalog&) {
                     for (const auto& name : wired) {
                       Host& h = *s.cluster.find_host(name);
                       double m = static_cast<double>(h.memory);
                       double rule = m - std::max(6.0 * (1ull << 30), 0.15 * m);
                       h.wired_limit_mb = static_cast<int64_t>(rule / (1 << 20));
                       s.steps.push_back(fmt::format("on {}: sudo sysctl iogpu.wired_limit_mb={}",
                                                     name, *h.wired_limit_mb));
                     }
                   }});
}

// A new host like `model`, joined to every shared network and, for a Mac, cabled to as many
// Macs as both have free ports for.
void add_host(Scenario& s, const Catalog& catalog, Host host, const std::string& what) {
  std::string base = host.name;
  for (int k = 1; s.cluster.find_host(host.name); ++k)
    host.name = fmt::format("{}-{}", base, k);
  const std::string name = host.name;
  host.ssh.clear();
  host.ports.clear();
  if (const MachineSpec* m = host_machine(host, catalog)) host.ports = default_ports(*m);
  host.interfaces.clear();
  host.thunderbolt_bridge.reset();
  const bool mac = is_mac(host, catalog);
  s.cluster.hosts.push_back(std::move(host));
  s.steps.push_back(fmt::format("buy {}, here named {}", what, name));
  for (Network& n : s.cluster.networks)
    if (!n.all_hosts) n.hosts.push_back(name);
  if (!s.cluster.networks.empty())
    s.steps.push_back(fmt::format("plug {} into the network switch", name));
  if (!mac) return;
  bool cabled_macs = false;
  for (const Cable& k : s.cluster.cables)
    cabled_macs = cabled_macs || is_thunderbolt(k.kind);
  if (!cabled_macs) return;
  for (size_t i = 0; i + 1 < s.cluster.hosts.size(); ++i) {
    const Host& other = s.cluster.hosts[i];
    if (!is_mac(other, catalog)) continue;
    Scenario trial = s;
    if (plug(trial, catalog, name, other.name, "connect").empty()) s = std::move(trial);
  }
}

void buy_changes(const ChangeSources& in, std::vector<Change>& out) {
  const Cluster& c = in.cluster;
  if (!in.buy.empty()) {
    for (const std::string& key : in.buy) {
      const MachineSpec* m = in.catalog.find_machine(key);
      if (!m) continue;  // checked by the caller
      // The best chip the machine comes with, at each size it is sold with.
      std::string chip = m->chips.empty() ? "" : m->chips.back();
      const ChipSpec* spec = in.catalog.find_chip(chip);
      Host like;
      for (const Host& h : c.hosts)
        if (is_mac(h, in.catalog)) like = h;
      for (uint64_t bytes : m->memory_options) {
        Host h;
        h.name = key;
        h.chip = chip;
        h.machine = key;
        h.memory = bytes;
        if (spec && spec->vendor == "apple") {
          h.os = like.os.kind == "macos" ? like.os : OsInfo{"macos", "26.2", ""};
          h.rdma_enabled = m->tb_generation >= 5 && like.rdma_enabled.value_or(false);
        } else {
          h.os = {"linux", "", ""};
        }
        std::string what = fmt::format("a {} with {}", m->name, gib_text(bytes));
        out.push_back({"buy",
                       "buy " + what,
                       {"buy"},
                       [h, what](Scenario& s, const Catalog& cat) { add_host(s, cat, h, what); },
                       key});
      }
    }
    return;
  }
  // One more of each kind of host already there (same machine, chip, memory and GPUs); sizes of
  // one machine smallest first, so that a larger one is advised only when it is faster.
  std::vector<const Host*> kinds;
  std::set<std::string> seen;
  for (const Host& h : c.hosts)
    if (seen.insert(fmt::format("{}|{}|{}|{}", h.machine, h.chip, h.memory, h.gpus.size())).second)
      kinds.push_back(&h);
  std::stable_sort(kinds.begin(), kinds.end(),
                   [](const Host* a, const Host* b) { return a->memory < b->memory; });
  for (const Host* h : kinds) {
    const MachineSpec* m = in.catalog.find_machine(h->machine);
    if (!m && !h->chip.empty()) m = in.catalog.default_machine(h->chip);
    std::string what = m ? fmt::format("a {} with {}", m->name, gib_text(h->memory))
                         : fmt::format("a host like {}", h->name);
    Host copy = *h;
    copy.name = m ? m->key : h->name + "-copy";
    out.push_back({"buy",
                   "buy " + what,
                   {"buy"},
                   [copy, what](Scenario& s, const Catalog& cat) { add_host(s, cat, copy, what); },
                   m ? fmt::format("{}|{}|{}", m->key, h->chip, h->gpus.size()) : ""});
  }
}

void remove_host_changes(const ChangeSources& in, std::vector<Change>& out) {
  const Cluster& c = in.cluster;
  if (c.hosts.size() < 2) return;
  for (const Host& h : c.hosts)
    out.push_back(
        {"remove-host",
         fmt::format("leave {} out", h.name),
         {"remove " + h.name},
         [name = h.name](Scenario& s, const Catalog&) {
           auto& hosts = s.cluster.hosts;
           hosts.erase(std::remove_if(hosts.begin(), hosts.end(),
                                      [&](const Host& x) { return x.name == name; }),
                       hosts.end());
           auto& cables = s.cluster.cables;
           cables.erase(
               std::remove_if(cables.begin(), cables.end(),
                              [&](const Cable& k) { return k.a.host == name || k.b.host == name; }),
               cables.end());
           for (Network& n : s.cluster.networks)
             n.hosts.erase(std::remove(n.hosts.begin(), n.hosts.end(), name), n.hosts.end());
           auto& rh = s.request.hosts;
           rh.erase(std::remove(rh.begin(), rh.end(), name), rh.end());
           auto& pins = s.request.pins;
           pins.erase(std::remove_if(pins.begin(), pins.end(),
                                     [&](const LayerPin& p) { return p.host == name; }),
                      pins.end());
           s.steps.push_back(fmt::format("leave {} out (plan --hosts without it)", name));
         }});
}

void model_changes(const ChangeSources& in, std::vector<Change>& out) {
  if (!in.memory_binds) return;
  for (const std::string& q : in.quantizations)
    out.push_back({"quantization",
                   fmt::format("the {} version of the model", q),
                   {"quantization"},
                   [q, model = in.model](Scenario& s, const Catalog&) {
                     s.quant = q;
                     s.steps.push_back(
                         fmt::format("use the {} version of {} (plan --quant {})", q, model, q));
                   }});
  for (int64_t context = in.request.context / 2;
       context >= 2048 && context >= in.request.context / 4; context /= 2)
    out.push_back({"context",
                   fmt::format("context {} tokens", context),
                   {"context"},
                   [context](Scenario& s, const Catalog&) {
                     s.request.context = context;
                     s.request.prompt = std::min(s.request.prompt, context);
                     s.steps.push_back(fmt::format("serve a context of {} tokens (--context {})",
                                                   context, context));
                   }});
}

void engine_changes(const ChangeSources& in, std::vector<Change>& out) {
  if (!in.request.engine.empty()) return;  // asked for: not ours to change
  std::string why;
  const Engine* inferred = infer_engine(in.cluster, in.catalog, in.request.hosts, why);
  const std::string now = !in.engine.empty() ? in.engine
                          : inferred         ? std::string(inferred->name)
                                             : "";
  std::vector<std::string> hosts = in.request.hosts;
  if (hosts.empty())
    for (const Host& h : in.cluster.hosts)
      hosts.push_back(h.name);
  for (const std::string& name : engine_name_list()) {
    const Engine* e = find_engine(name);
    if (name == now || !e || !platform_refusal(*e, in.cluster, in.catalog, hosts).empty()) continue;
    out.push_back({"engine",
                   fmt::format("run it with {}", name),
                   {"engine"},
                   [name](Scenario& s, const Catalog&) {
                     s.request.engine = name;
                     s.steps.push_back(
                         fmt::format("run it with {} (plan --engine {})", name, name));
                   }});
  }
}

}  // namespace

std::vector<Change> candidate_changes(const ChangeSources& in) {
  std::vector<Change> out;
  LinkGraph graph(in.cluster, in.catalog);
  TbFabric fabric(in.cluster, graph);
  add_cable_changes(in, fabric, out);
  upgrade_changes(in, fabric, out);
  network_cable_changes(in, out);
  host_setting_changes(in, fabric, out);
  buy_changes(in, out);
  remove_host_changes(in, out);
  model_changes(in, out);
  engine_changes(in, out);
  return out;
}

Scenario apply_changes(const Cluster& cluster, const PlanRequest& request,
                       const std::vector<const Change*>& changes, const Catalog& catalog) {
  Scenario s{cluster, request, "", {}, {}, ""};
  for (const Change* c : changes)
    c->apply(s, catalog);
  return s;
}

}  // namespace meshplan
