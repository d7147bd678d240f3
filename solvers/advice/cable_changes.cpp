#include "solvers/advice/cable_changes.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "lib/cluster/link_graph.hpp"
#include "lib/plan/engines.hpp"

namespace meshplan {

bool is_mac_host(const Host& h, const Catalog& catalog) {
  return host_platform(h, catalog) == Platform::kMac;
}

bool rdma_on(const Cluster& c, const std::string& a, const std::string& b) {
  const Host* x = c.find_host(a);
  const Host* y = c.find_host(b);
  return x && y && x->rdma_enabled.value_or(false) && y->rdma_enabled.value_or(false);
}

void mark_invalid(Scenario& s, const std::string& why) {
  if (s.invalid.empty()) s.invalid = why;
}

namespace {

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

}  // namespace

// Plugs a Thunderbolt cable between a and b on their lowest free ports; "" or why not.
std::string plug_cable(Scenario& s, const Catalog& catalog, const std::string& a,
                       const std::string& b, const std::string& verb) {
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

void add_cable_changes(const ChangeSources& in, const TbFabric& fabric, std::vector<Change>& out) {
  const Cluster& c = in.cluster;
  for (size_t a = 0; a < c.hosts.size(); ++a)
    for (size_t b = a + 1; b < c.hosts.size(); ++b) {
      const Host& ha = c.hosts[a];
      const Host& hb = c.hosts[b];
      if (!is_mac_host(ha, in.catalog) || !is_mac_host(hb, in.catalog) || fabric.count(a, b) > 0)
        continue;
      const bool free_a = free_port(fabric, a) != nullptr, free_b = free_port(fabric, b) != nullptr;
      if (free_a && free_b) {
        out.push_back({"cable",
                       fmt::format("cable {} - {}", ha.name, hb.name),
                       {},
                       [x = ha.name, y = hb.name](Scenario& s, const Catalog& cat) {
                         std::string why = plug_cable(s, cat, x, y, "connect");
                         if (!why.empty()) mark_invalid(s, why);
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
                         if (i < 0) return mark_invalid(s, "the cable to move is gone");
                         s.cluster.cables.erase(s.cluster.cables.begin() + i);
                         s.steps.push_back(fmt::format("unplug the cable between {} port {} and {}",
                                                       full_name, near_port, far_name));
                         std::string why =
                             plug_cable(s, cat, full_name, other_name, "plug it into");
                         if (!why.empty()) mark_invalid(s, why);
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
           if (i < 0) return mark_invalid(s, "the cable to replace is gone");
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
             s.cables.push_back({cable.a.host, cable.a.port, "", cable.b.host, cable.b.port, "",
                                 std::string(name(LinkKind::kTb5))});
             return;
           }
           // A Thunderbolt 4 port at an end: the new cable goes to a Thunderbolt 5 port.
           s.cluster.cables.erase(s.cluster.cables.begin() + i);
           s.steps.push_back(fmt::format("unplug the {} cable between {} port {} and {} port {}",
                                         link_kind_name(cable.kind), cable.a.host, cable.a.port,
                                         cable.b.host, cable.b.port));
           std::string why = plug_cable(s, cat, a, b, "connect");
           if (why.empty() && s.cluster.cables.back().kind != LinkKind::kTb5)
             why = "no free Thunderbolt 5 port";
           if (!why.empty()) mark_invalid(s, why);
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
             if (sx.empty() || sy.empty()) return mark_invalid(s, "no spare interface left");
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

}  // namespace meshplan
