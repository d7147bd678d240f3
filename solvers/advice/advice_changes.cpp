#include "solvers/advice/advice_changes.hpp"
#include "solvers/advice/cable_changes.hpp"

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

// What the unified-memory rule of the catalog leaves usable (the wired limit to raise to).
double usable_by_rule(const Catalog& catalog, uint64_t memory) {
  const MemoryRule& rule = catalog.unified_memory_rule();
  const double m = static_cast<double>(memory);
  return m - std::max(rule.reserve_min_bytes, rule.reserve_fraction * m);
}

// Macs that could run RDMA over their Thunderbolt 5 cables but do not say so.
void host_setting_changes(const ChangeSources& in, const TbFabric& fabric,
                          std::vector<Change>& out) {
  const Cluster& c = in.cluster;
  std::vector<std::string> rdma, bridge, wired;
  for (size_t h = 0; h < c.hosts.size(); ++h) {
    const Host& host = c.hosts[h];
    if (!is_mac_host(host, in.catalog)) continue;
    if (!host.rdma_enabled.value_or(false) && fabric.tb5_port_count(h) > 0)
      rdma.push_back(host.name);
    if (host.thunderbolt_bridge && host.thunderbolt_bridge->up) bridge.push_back(host.name);
    if (host.wired_limit_mb && !host.usable_memory && host.memory > 0) {
      if (static_cast<double>(*host.wired_limit_mb) * (1 << 20) <
          usable_by_rule(in.catalog, host.memory))
        wired.push_back(host.name);
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
                   [wired](Scenario& s, const Catalog& cat) {
                     for (const auto& name : wired) {
                       Host& h = *s.cluster.find_host(name);
                       h.wired_limit_mb =
                           static_cast<int64_t>(usable_by_rule(cat, h.memory) / (1 << 20));
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
  const bool mac = is_mac_host(host, catalog);
  s.cluster.hosts.push_back(std::move(host));
  s.steps.push_back(fmt::format("buy {}, here named {}", what, name));
  for (Network& n : s.cluster.networks)
    if (!n.all_hosts) n.hosts.push_back(name);
  if (!s.cluster.networks.empty())
    s.steps.push_back(fmt::format("plug {} into the network switch", name));
  if (!mac) return;
  // Macs already cabled by Thunderbolt, or one Mac alone: the new one is cabled to them where
  // both have free ports (Macs joined only by a switch stay so).
  bool cabled_macs = false;
  int macs = 0;
  for (const Cable& k : s.cluster.cables)
    cabled_macs = cabled_macs || is_thunderbolt(k.kind);
  for (size_t i = 0; i + 1 < s.cluster.hosts.size(); ++i)
    macs += is_mac_host(s.cluster.hosts[i], catalog);
  if (!cabled_macs && macs != 1) return;
  for (size_t i = 0; i + 1 < s.cluster.hosts.size(); ++i) {
    const Host& other = s.cluster.hosts[i];
    if (!is_mac_host(other, catalog)) continue;
    Scenario trial = s;
    if (plug_cable(trial, catalog, name, other.name, "connect").empty()) s = std::move(trial);
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
        if (is_mac_host(h, in.catalog)) like = h;
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
