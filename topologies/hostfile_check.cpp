#include "topologies/hostfile_check.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <optional>

#include "lib/cluster/mlx_backend.hpp"
#include "topologies/host_networks.hpp"
#include "topologies/subnet_plan.hpp"

namespace meshplan {
namespace {

// Whether `ip` lies in `subnet` ("10.0.1.0/24"); false when either is malformed.
bool in_subnet(const std::string& ip, const std::string& subnet) {
  const size_t slash = subnet.find('/');
  const auto net = parse_ipv4_number(subnet.substr(0, slash));
  const auto address = parse_ipv4_number(ip);
  if (!net || !address || slash == std::string::npos) return false;
  const int prefix = std::atoi(subnet.c_str() + slash + 1);
  if (prefix < 0 || prefix > 32) return false;
  const uint32_t mask = prefix == 0 ? 0 : ~uint32_t{0} << (32 - prefix);
  return (*net & mask) == (*address & mask);
}

// A ring hop over Wi-Fi or 1 GbE while the two hosts share a link at least twice its bandwidth (a
// Thunderbolt cable, a faster network) is worth a warning. Faster networks are left alone: beside
// Thunderbolt's TCP their lower latency can win for decode's small messages.
constexpr double kSlowerLinkFactor = 2.0;
bool slow_kind(LinkKind kind) {
  return kind == LinkKind::kWifi || kind == LinkKind::k1gbe;
}

struct Owner {
  size_t host = 0;
  std::string interface;
  const FabricCable* cable = nullptr;  // the cable the address is on, for Thunderbolt addresses
  bool thunderbolt = false;
};

class HostfileChecker {
 public:
  HostfileChecker(const TopologyContext& ctx, const MlxHostfile& f, HostfileVerdict& v)
      : ctx_(ctx), f_(f), v_(v), n_(f.hosts.size()), host_(f.hosts.size(), -1) {}

  void run() {
    map_hosts();
    index_addresses();
    const bool mesh = is_backend(v_.backend, MlxBackend::kJaccl);
    if (is_jaccl(v_.backend)) {
      if (mesh && n_ > kJacclMaxRanks)
        add("jaccl-max-ranks", Severity::kError,
            fmt::format("{} ranks; JACCL's mesh supports at most {}", n_, kJacclMaxRanks));
      if (!rows_ok()) return;
      mesh ? check_mesh() : check_jaccl_ring();
      check_coordinator();
    } else {
      check_ring();
    }
  }

 private:
  std::string rank(size_t i) const { return fmt::format("rank {} ({})", i, f_.hosts[i].ssh); }
  const std::string& name(size_t h) const { return ctx_.cluster.hosts[h].name; }
  bool mapped(size_t i) const { return host_[i] >= 0; }
  size_t h(size_t i) const { return static_cast<size_t>(host_[i]); }

  void add(std::string code, Severity s, std::string message, std::string fix = "") {
    CheckIssue i;
    i.code = std::move(code);
    i.severity = s;
    i.backend = v_.backend;
    i.message = std::move(message);
    i.fix = fix.empty() ? order_fix() : std::move(fix);
    v_.issues.push_back(std::move(i));
  }

  // What the cabling says the hostfile should be.
  std::string order_fix() {
    if (!fix_.empty()) return fix_;
    std::vector<size_t> members;  // in the cluster's order, as `emit` would rank them
    for (size_t i = 0; i < n_; ++i)
      if (mapped(i) && std::find(members.begin(), members.end(), h(i)) == members.end())
        members.push_back(h(i));
    std::sort(members.begin(), members.end());
    const std::string backend = is_backend(v_.backend, MlxBackend::kRing) || is_jaccl(v_.backend)
                                    ? v_.backend
                                    : std::string(meshplan::name(MlxBackend::kEthernet));
    BackendVerdict good = check_backend(ctx_, backend, members, false);
    if (!good.valid)
      return fix_ = fmt::format(
                 "the cabling carries no {} over these hosts; run `meshplan check --backend {}`",
                 backend, backend);
    std::string order;
    for (const auto& r : good.ranks)
      order += (order.empty() ? "" : ", ") + r;
    return fix_ = fmt::format(
               "`meshplan emit mlx-hostfile --backend {}` writes a hostfile that matches the "
               "cabling "
               "(ranks {})",
               backend, order);
  }

  void map_hosts() {
    for (size_t i = 0; i < n_; ++i) {
      for (size_t k = 0; k < ctx_.cluster.hosts.size(); ++k) {
        const Host& host = ctx_.cluster.hosts[k];
        if (host.name == f_.hosts[i].ssh || host.ssh_target() == f_.hosts[i].ssh)
          host_[i] = static_cast<int>(k);
      }
      if (!mapped(i)) {
        add("unknown-host", Severity::kError,
            fmt::format("{}: {} is not a host of the cluster file", rank(i), f_.hosts[i].ssh),
            "use the hosts' names (or ssh targets) from the cluster file");
      }
    }
  }

  void index_addresses() {
    for (size_t k = 0; k < ctx_.cluster.hosts.size(); ++k) {
      const Host& host = ctx_.cluster.hosts[k];
      for (const auto& i : host.interfaces) {
        if (i.ipv4.empty()) continue;
        const ThunderboltPort* p = host.find_port_by_interface(i.name);
        owners_.emplace(i.ipv4, Owner{k, i.name, p ? cable_on(k, p->id) : nullptr,
                                      p != nullptr || i.kind == "thunderbolt"});
      }
      for (const auto& p : host.ports)
        if (!p.ipv4.empty())
          owners_.emplace(p.ipv4, Owner{k, p.interface, cable_on(k, p.id), true});
    }
    for (const auto& a : ctx_.subnets.cables) {
      owners_.emplace(a.lo_address, Owner{a.cable->lo.host, a.cable->lo.interface, a.cable, true});
      owners_.emplace(a.hi_address, Owner{a.cable->hi.host, a.cable->hi.interface, a.cable, true});
    }
  }

  const FabricCable* cable_on(size_t host, const std::string& port) const {
    for (const auto& p : ctx_.fabric.ports(host))
      if (p.id == port && p.cable >= 0) return &ctx_.fabric.cables()[static_cast<size_t>(p.cable)];
    return nullptr;
  }

  const FabricPort* device_port(size_t host, const std::string& device) const {
    for (const auto& p : ctx_.fabric.ports(host))
      if (p.rdma_device == device) return &p;
    return nullptr;
  }

  void check_ring() {
    if (n_ < 2) return;
    for (size_t i = 0; i < n_; ++i) {
      if (f_.hosts[i].ips.empty())
        add("no-ips", Severity::kError,
            fmt::format("{} has no ips; the ring backend requires IPs", rank(i)));
      else if (f_.hosts[i].ips.size() != f_.hosts[0].ips.size())
        add("ring-ip-count", Severity::kError,
            fmt::format("{} has {} ips but rank 0 has {}; every rank needs as many connections to "
                        "the left as to the "
                        "right",
                        rank(i), f_.hosts[i].ips.size(), f_.hosts[0].ips.size()));
    }
    // A hostfile with any Thunderbolt address is a ring over the cables: neighbours need one.
    bool over_cables = false;
    for (const auto& host : f_.hosts)
      for (const auto& ip : host.ips) {
        auto it = owners_.find(ip);
        over_cables = over_cables || (it != owners_.end() && it->second.thunderbolt);
      }
    for (size_t i = 0; i < n_; ++i) {
      size_t left = (i + n_ - 1) % n_;
      if (!mapped(i) || !mapped(left)) continue;
      bool cabled = ctx_.fabric.count(h(i), h(left)) > 0;
      if (over_cables && !cabled && (n_ > 2 || i == 0)) {
        add("ring-neighbours-not-cabled", Severity::kError,
            fmt::format("{} and {} are ring neighbours but no Thunderbolt cable joins them",
                        rank(left), rank(i)));
      }
      for (const auto& ip : f_.hosts[i].ips)
        check_ring_address(i, left, ip, cabled);
    }
  }

  // One of rank i's addresses: its own, and reachable from its left neighbour.
  void check_ring_address(size_t i, size_t left, const std::string& ip, bool cabled) {
    auto it = owners_.find(ip);
    if (it == owners_.end()) {
      add("address-unknown", Severity::kWarning,
          fmt::format("{} lists {}, an address the cluster file does not know for {}", rank(i), ip,
                      name(h(i))),
          "run `meshplan discover` so that the addresses are known, or check the hostfile by hand");
      return;
    }
    const Owner& o = it->second;
    if (o.host != h(i)) {
      add("address-not-own", Severity::kError,
          fmt::format("{} lists {}, but that is {}'s address on {}; {} cannot listen on it",
                      rank(i), ip, name(o.host), o.interface, name(h(i))));
    } else if (o.thunderbolt) {
      if (cabled && (!o.cable || o.cable->other(h(i)).host != h(left))) {
        add("address-wrong-neighbour", Severity::kError,
            fmt::format("{} lists {} on {}{}, but its left neighbour is {}, which cannot reach it",
                        rank(i), ip, o.interface,
                        o.cable ? " (cable to " + name(o.cable->other(h(i)).host) + ")" : "",
                        rank(left)));
      }
    } else if (shared_network(ctx_.cluster, {h(i), h(left)}, true) < 0 &&
               management_address(ctx_.cluster.hosts[h(left)]).address.empty()) {
      add("no-shared-network", Severity::kWarning,
          fmt::format("{} lists {} on {}, but no network joining it to {} is known", rank(i), ip,
                      o.interface, rank(left)));
    } else if (h(left) != h(i)) {
      check_faster_link(i, left, ip, o);
    }
  }

  // The link an address of `host` sits on among those joining it to `peer`: the shared network
  // whose subnet holds it, else, for a Wi-Fi interface, their Wi-Fi network.
  std::optional<LinkFigures> address_link(size_t host, size_t peer, const std::string& ip,
                                          const Owner& o) const {
    const NetInterface* iface = ctx_.cluster.hosts[host].find_interface(o.interface);
    std::optional<LinkFigures> wifi;
    for (const LinkFigures& l : ctx_.graph.links(host, peer)) {
      if (l.network < 0) continue;
      const Network& net = ctx_.cluster.networks[static_cast<size_t>(l.network)];
      if (in_subnet(ip, net.subnet)) return l;
      if (iface && find_link_kind(iface->kind) == LinkKind::kWifi && net.kind == LinkKind::kWifi)
        wifi = l;
    }
    return wifi;
  }

  // Where `host` should listen instead: its end of `link`, with the address when one is known.
  std::string address_on(size_t host, const LinkFigures& link) const {
    const Host& hh = ctx_.cluster.hosts[host];
    if (link.network >= 0) {
      const Network& net = ctx_.cluster.networks[static_cast<size_t>(link.network)];
      for (const auto& i : hh.interfaces)
        if (!i.ipv4.empty() && in_subnet(i.ipv4, net.subnet))
          return fmt::format("{} ({} on the {} network)", i.ipv4, i.name,
                             meshplan::name(link.kind));
      return fmt::format("its address on the {} network{}", meshplan::name(link.kind),
                         net.subnet.empty() ? "" : " " + net.subnet);
    }
    for (const FabricCable& c : ctx_.fabric.cables()) {
      if (static_cast<int>(c.index) != link.cable) continue;
      const std::string& iface = c.end(host).interface;
      const NetInterface* i = hh.find_interface(iface);
      const ThunderboltPort* p = hh.find_port_by_interface(iface);
      if (i && !i->ipv4.empty()) return fmt::format("{} ({})", i->ipv4, iface);
      if (p && !p->ipv4.empty()) return fmt::format("{} ({})", p->ipv4, iface);
      const CableAddresses* planned = ctx_.subnets.find(&c);
      if (planned)
        return fmt::format("{} ({}, the address `meshplan setup` gives it)", planned->address(host),
                           iface);
      return fmt::format("its address on {}", iface);
    }
    return "its address on that cable";
  }

  // Rank i's address to its left neighbour sits on a link much slower than another the two hosts
  // share: the ring runs at Wi-Fi or 1 GbE speed although a cable joins them.
  void check_faster_link(size_t i, size_t left, const std::string& ip, const Owner& o) {
    const std::optional<LinkFigures> used = address_link(h(i), h(left), ip, o);
    if (!used || !slow_kind(used->kind)) return;
    std::optional<LinkFigures> best;
    for (const LinkFigures& l : ctx_.graph.links(h(i), h(left)))
      if (!best || l.tcp_bandwidth > best->tcp_bandwidth) best = l;
    if (!best || best->tcp_bandwidth < kSlowerLinkFactor * used->tcp_bandwidth) return;
    const std::string faster = best->network >= 0
                                   ? fmt::format("the {} network", meshplan::name(best->kind))
                                   : fmt::format("a {} cable", display_name(best->kind));
    add("slower-network-address", Severity::kWarning,
        fmt::format("{} lists {} on {} ({}) for its left neighbour {}, but {} joins {} and {}: "
                    "the ring runs at {:.2f} GB/s instead of {:.2f} GB/s",
                    rank(i), ip, o.interface, meshplan::name(used->kind), rank(left), faster,
                    name(h(left)), name(h(i)), used->tcp_bandwidth / 1e9,
                    best->tcp_bandwidth / 1e9),
        fmt::format("list {}'s {} instead; or {}", name(h(i)), address_on(h(i), *best),
                    order_fix()));
  }

  bool rows_ok() {
    bool ok = true;
    for (size_t i = 0; i < n_; ++i) {
      const auto& row = f_.hosts[i].rdma;
      if (row.size() != n_ || row[i].present) {
        add("malformed-rdma", Severity::kError,
            fmt::format("{}: malformed hostfile for {}: rdma needs {} entries with null at index "
                        "{}, it has {}",
                        rank(i), v_.backend, n_, i, row.size()),
            "");
        ok = false;
      }
    }
    return ok;
  }

  // The cable behind `device` on rank i's host, checked to lead to rank j's host; nullptr after
  // reporting when it does not.
  const FabricCable* device_cable(size_t i, size_t j, const std::string& device) {
    const FabricPort* p = device_port(h(i), device);
    std::string what = fmt::format("{} lists {} for {}", rank(i), device, rank(j));
    if (!p) {
      add("rdma-unknown-device", Severity::kError,
          fmt::format("{}, but {} has no such device", what, name(h(i))));
      return nullptr;
    }
    if (p->cable < 0) {
      add("rdma-device-not-cabled", Severity::kError,
          fmt::format("{}, but nothing is cabled to port {} ({})", what, p->id, p->interface));
      return nullptr;
    }
    const FabricCable& c = ctx_.fabric.cables()[static_cast<size_t>(p->cable)];
    if (c.other(h(i)).host != h(j)) {
      add("rdma-wrong-peer", Severity::kError,
          fmt::format("{}, but the cable on {} goes to {}", what, p->interface,
                      name(c.other(h(i)).host)));
      return nullptr;
    }
    if (!c.rdma) {
      add("rdma-cable-without-rdma", Severity::kError,
          fmt::format("{}, but that cable carries no RDMA: {}", what, c.no_rdma_reason),
          "use a Thunderbolt 5 cable between Thunderbolt 5 ports with RDMA enabled on both hosts");
      return nullptr;
    }
    return &c;
  }

  void check_mesh() {
    for (size_t i = 0; i < n_; ++i) {
      for (size_t j = 0; j < n_; ++j) {
        if (i == j || !mapped(i) || !mapped(j)) continue;
        const RdmaCell& cell = f_.hosts[i].rdma[j];
        if (!cell.present) {
          add("rdma-missing-pair", Severity::kError,
              fmt::format("{} has no RDMA device for {}; the mesh uses every pair", rank(i),
                          rank(j)));
          continue;
        }
        device_cable(i, j, cell.devices.front());
      }
    }
  }

  void check_jaccl_ring() {
    if (n_ < 2) return;
    size_t width = f_.hosts[0].rdma[1].devices.size();
    for (size_t i = 0; i < n_; ++i) {
      for (size_t j : {(i + n_ - 1) % n_, (i + 1) % n_}) {
        const RdmaCell& cell = f_.hosts[i].rdma[j];
        if (!cell.present || cell.devices.size() != width) {
          add("ring-width", Severity::kError,
              fmt::format("{} lists {} device{} for its neighbour {}; every neighbour needs {}",
                          rank(i), cell.devices.size(), cell.devices.size() == 1 ? "" : "s",
                          rank(j), width));
          continue;
        }
        if (!mapped(i) || !mapped(j)) continue;
        for (size_t k = 0; k < width; ++k) {
          const FabricCable* c = device_cable(i, j, cell.devices[k]);
          const RdmaCell& back = f_.hosts[j].rdma[i];
          if (!c || i > j || !back.present || back.devices.size() != width) continue;
          const std::string& expected = c->end(h(j)).rdma_device;
          if (back.devices[k] != expected) {
            add("rails-crossed", Severity::kError,
                fmt::format("cable {} between {} and {}: {} lists {}, whose other end is {}, but "
                            "{} lists {} at that index",
                            k, rank(i), rank(j), rank(i), cell.devices[k], expected, rank(j),
                            back.devices[k]));
          }
        }
      }
    }
  }

  void check_coordinator() {
    if (f_.hosts[0].ips.empty()) {
      add("no-coordinator", Severity::kError,
          "rank 0 has no ips; it should have an IP reachable from all other ranks");
      return;
    }
    const std::string& ip = f_.hosts[0].ips[0];
    auto it = owners_.find(ip);
    if (!mapped(0)) return;
    if (it == owners_.end()) {
      add("coordinator-unknown", Severity::kWarning,
          fmt::format(
              "rank 0's coordinator address {} is not an address the cluster file knows for {}", ip,
              name(h(0))),
          "run `meshplan discover` so that the addresses are known");
    } else if (it->second.host != h(0)) {
      add("coordinator-not-own", Severity::kError,
          fmt::format(
              "rank 0's coordinator address {} belongs to {}, not to {}; rank 0 cannot bind to it",
              ip, name(it->second.host), name(h(0))));
    } else if (it->second.thunderbolt) {
      add("coordinator-on-thunderbolt", Severity::kError,
          fmt::format("rank 0's coordinator address {} is on {}, a Thunderbolt port; the other "
                      "ranks may not reach it",
                      ip, it->second.interface),
          "list rank 0's en0 (or en1) address first");
    }
  }

  const TopologyContext& ctx_;
  const MlxHostfile& f_;
  HostfileVerdict& v_;
  size_t n_;
  std::vector<int> host_;
  std::map<std::string, Owner> owners_;
  std::string fix_;
};

}  // namespace

HostfileVerdict check_hostfile(const TopologyContext& ctx, const MlxHostfile& hostfile,
                               const std::string& path, const std::string& backend) {
  HostfileVerdict v;
  v.path = path;
  if (!is_backend(backend, MlxBackend::kAuto))
    v.backend = backend;
  else if (!hostfile.backend)
    v.backend = name(MlxBackend::kRing);
  else if (hostfile.backend->empty())
    v.backend = name(MlxBackend::kEthernet);
  else
    v.backend = *hostfile.backend;
  for (const auto& h : hostfile.hosts)
    v.ranks.push_back(h.ssh);
  const auto known = find_mlx_backend(v.backend);
  const auto& checked = all_mlx_backends();
  if (!known || std::find(checked.begin(), checked.end(), *known) == checked.end()) {
    CheckIssue i;
    i.code = "unknown-backend";
    i.message = fmt::format(
        "backend \"{}\" cannot be checked against Thunderbolt cabling (ring, jaccl, jaccl-ring or "
        "\"\")",
        v.backend);
    i.severity = Severity::kNote;
    v.issues.push_back(std::move(i));
    return v;
  }
  HostfileChecker(ctx, hostfile, v).run();
  return v;
}

}  // namespace meshplan
