#include "topologies/subnet_plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>

#include "lib/core/error.hpp"

namespace meshplan {
namespace {

constexpr uint32_t kBase = (192u << 24) | (168u << 16);  // 192.168.0.0/16, as MLX uses

struct InUse {
  uint32_t first = 0;
  uint32_t last = 0;
  std::string what;  // "en0 on mac-a (192.168.0.20/24)"
  bool reported = false;
};

uint32_t mask(int prefix) {
  return prefix <= 0 ? 0 : prefix >= 32 ? 0xffffffffu : ~((1u << (32 - prefix)) - 1);
}

// Only ranges that meet 192.168.0.0/16 can clash with a /30 taken there: a fleet's thousands of
// management addresses elsewhere are not kept (each /30 is checked against every range kept).
void add_range(std::vector<InUse>& out, uint32_t address, int prefix, std::string what) {
  uint32_t m = mask(prefix);
  const uint32_t first = address & m, last = first | ~m;
  if (last < kBase || first > kBase + 0xffff) return;
  out.push_back({first, last, std::move(what)});
}

// Subnets already in use: every interface address except the Thunderbolt ports that setup
// reconfigures and bridge0 (setup takes it down), and every network of the cluster.
std::vector<InUse> subnets_in_use(const Cluster& cluster) {
  std::vector<InUse> out;
  for (const auto& h : cluster.hosts) {
    for (const auto& i : h.interfaces) {
      if (i.ipv4.empty() || i.name == "bridge0" || h.find_port_by_interface(i.name)) continue;
      auto a = parse_ipv4_number(i.ipv4);
      if (!a) continue;
      if (i.prefix > 0) {
        add_range(out, *a, i.prefix,
                  fmt::format("{} on {} ({}/{})", i.name, h.name, i.ipv4, i.prefix));
      } else {
        add_range(
            out, *a, 24,
            fmt::format("{} on {} ({}, prefix unknown, taken as /24)", i.name, h.name, i.ipv4));
      }
    }
  }
  for (const auto& n : cluster.networks) {
    auto slash = n.subnet.find('/');
    auto a = parse_ipv4_number(n.subnet.substr(0, slash));
    if (!a) continue;
    int prefix = 24;
    if (slash != std::string::npos) {
      std::string p = n.subnet.substr(slash + 1);
      std::from_chars(p.data(), p.data() + p.size(), prefix);
    }
    add_range(out, *a, prefix, fmt::format("the {} network {}", link_kind_name(n.kind), n.subnet));
  }
  return out;
}

}  // namespace

std::optional<uint32_t> parse_ipv4_number(std::string_view text) {
  uint32_t value = 0;
  int parts = 0;
  const char* p = text.data();
  const char* end = text.data() + text.size();
  while (p < end && parts < 4) {
    unsigned octet = 0;
    auto [next, ec] = std::from_chars(p, end, octet);
    if (ec != std::errc() || octet > 255 || next == p) return std::nullopt;
    value = (value << 8) | octet;
    ++parts;
    p = next;
    if (p < end) {
      if (*p != '.' || parts == 4) return std::nullopt;
      ++p;
    }
  }
  if (parts != 4 || p != end) return std::nullopt;
  return value;
}

std::string ipv4_text(uint32_t a) {
  return fmt::format("{}.{}.{}.{}", a >> 24, (a >> 16) & 255, (a >> 8) & 255, a & 255);
}

const CableAddresses* SubnetPlan::find(const FabricCable* cable) const {
  for (const auto& c : cables)
    if (c.cable == cable) return &c;
  return nullptr;
}

// A cable joined by named network interfaces (not Thunderbolt) whose ends have no address yet.
bool unaddressed_direct_cable(const Cluster& cluster, const Cable& c) {
  if (is_thunderbolt(c.kind) || c.a.interface.empty() || c.b.interface.empty()) return false;
  for (const Endpoint* e : {&c.a, &c.b}) {
    const Host* h = cluster.find_host(e->host);
    const NetInterface* i = h ? h->find_interface(e->interface) : nullptr;
    if (i && !i->ipv4.empty()) return false;
  }
  return true;
}

SubnetPlan plan_subnets(const TbFabric& fabric) {
  SubnetPlan plan;
  std::vector<InUse> in_use = subnets_in_use(fabric.cluster());
  uint32_t next = 0;  // offset of the next /30 inside 192.168.0.0/16
  size_t wanted = fabric.cables().size();
  for (const auto& c : fabric.cluster().cables)
    wanted += unaddressed_direct_cable(fabric.cluster(), c);
  // The first free /30 from `next` on, noting the ranges skipped.
  auto take = [&]() {
    for (;;) {
      if (next > 0xffff) {
        throw failure(
            "the {} cables need more /30 subnets than 192.168.0.0/16 has free; free some of the "
            "ranges in use or cable fewer ports",
            wanted);
      }
      uint32_t first = kBase + next, last = first + 3;
      uint32_t end = 0;  // last address of the ranges this /30 collides with
      std::vector<InUse*> clashes;
      for (auto& u : in_use) {
        if (first > u.last || u.first > last) continue;
        clashes.push_back(&u);
        end = std::max(end, u.last);
      }
      if (clashes.empty()) break;
      std::string what;
      for (InUse* u : clashes) {
        if (u->reported) continue;
        what += (what.empty() ? "" : ", ") + u->what;
        u->reported = true;
      }
      if (!what.empty()) {
        plan.notes.push_back(fmt::format("skipped {}-{}: it is in use by {}", ipv4_text(first),
                                         ipv4_text(std::min(end, kBase + 0xffff)), what));
      }
      next = end - kBase + 1;
      next = (next + 3) & ~3u;
    }
    uint32_t at = kBase + next;
    next += 4;
    return at;
  };
  for (const auto& cable : fabric.cables()) {
    uint32_t at = take();
    CableAddresses a;
    a.cable = &cable;
    a.lo_address = ipv4_text(at + 1);
    a.hi_address = ipv4_text(at + 2);
    a.subnet = ipv4_text(at) + "/30";
    plan.cables.push_back(std::move(a));
  }
  const auto& cables = fabric.cluster().cables;
  for (size_t i = 0; i < cables.size(); ++i) {
    if (!unaddressed_direct_cable(fabric.cluster(), cables[i])) continue;
    uint32_t at = take();
    plan.direct.push_back({i, ipv4_text(at + 1), ipv4_text(at + 2), ipv4_text(at) + "/30"});
  }
  if (!plan.notes.empty()) {
    plan.notes.push_back(
        fmt::format("Thunderbolt cables use the next free /30 ranges instead, from {}",
                    plan.cables.empty() ? "-" : plan.cables.front().subnet));
  }
  return plan;
}

std::vector<HostSetup> host_setups(const TbFabric& fabric, const SubnetPlan& plan) {
  const Cluster& cluster = fabric.cluster();
  std::vector<HostSetup> out;
  for (size_t i = 0; i < cluster.hosts.size(); ++i) {
    const Host& h = cluster.hosts[i];
    HostSetup s;
    s.host = h.name;
    s.ssh = h.ssh_target();
    s.restore_bridge = !h.thunderbolt_bridge || h.thunderbolt_bridge->up;
    for (size_t j = 0; j < cluster.hosts.size(); ++j) {
      if (i == j) continue;
      for (const FabricCable* c : fabric.between(i, j)) {
        const CableAddresses* a = plan.find(c);
        const FabricEnd& end = c->end(i);
        if (end.interface.empty()) {
          throw input_error(
              "{}: the interface of the Thunderbolt port {} of {} is not known (cable {}); run "
              "`meshplan discover` or add `interface` to the port in the cluster file",
              h.name, end.port.empty() ? "in use" : end.port, h.name,
              end_text(cluster, c->lo) + " - " + end_text(cluster, c->hi));
        }
        s.links.push_back({end.interface, a->address(i), a->peer_address(i)});
      }
    }
    s.linux = h.os.kind == "linux";
    for (const DirectCableAddresses& d : plan.direct) {
      const Cable& c = cluster.cables[d.cable];
      if (c.a.host == h.name) s.direct.push_back({c.a.interface, d.a_address, d.b_address});
      if (c.b.host == h.name) s.direct.push_back({c.b.interface, d.b_address, d.a_address});
    }
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace meshplan
