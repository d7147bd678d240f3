#include "lib/discovery/cable_matcher.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>

namespace meshplan {
namespace {

struct PortRef {
  size_t host = 0;
  size_t bus = 0;
  auto operator<=>(const PortRef&) const = default;
};

struct Claim {
  PortRef to;
  const TbPeer* peer = nullptr;
};

std::string describe_peer(const TbPeer& p) {
  std::string s = p.name.empty() ? "a Mac" : p.name;
  if (!p.model_id.empty() && p.model_id != p.name) s += " (" + p.model_id + ")";
  return s;
}

std::string via_text(const TbPeer& p) {
  if (p.via.empty()) return "";
  std::string s;
  for (const auto& v : p.via)
    s += (s.empty() ? "" : ", ") + v;
  return " behind " + s;
}

size_t hosts_position(const std::vector<Host>& hosts, const std::string& name) {
  for (size_t i = 0; i < hosts.size(); ++i) {
    if (hosts[i].name == name) return i;
  }
  return hosts.size();
}

int port_number(const std::string& id) {
  int v = 0;
  for (char c : id) {
    if (c < '0' || c > '9') return 1 << 20;
    v = v * 10 + (c - '0');
  }
  return v;
}

class Matcher {
 public:
  Matcher(const std::vector<Host>& hosts, const std::vector<std::vector<TbBus>>& buses,
          const Catalog& catalog)
      : hosts_(hosts), buses_(buses), catalog_(catalog) {}

  CableMatch run() {
    index();
    claim();
    connect();
    std::stable_sort(out_.cables.begin(), out_.cables.end(), [&](const Cable& x, const Cable& y) {
      auto key = [&](const Cable& c) {
        return std::tuple(hosts_index(c.a.host), hosts_index(c.b.host), port_number(c.a.port),
                          port_number(c.b.port));
      };
      return key(x) < key(y);
    });
    return std::move(out_);
  }

 private:
  int hosts_index(const std::string& name) const {
    for (size_t i = 0; i < hosts_.size(); ++i) {
      if (hosts_[i].name == name) return static_cast<int>(i);
    }
    return -1;
  }

  std::string port_text(size_t h, size_t b) const {
    const TbBus& bus = buses_[h][b];
    const ThunderboltPort* p = hosts_[h].find_port(bus.receptacle_id);
    std::string iface = p && !p->interface.empty() ? " (" + p->interface + ")" : "";
    return fmt::format("{} port {}{}", hosts_[h].name, bus.receptacle_id, iface);
  }

  void finding(const std::string& kind, size_t h, size_t b, const std::string& peer,
               const std::string& message) {
    out_.findings.push_back({kind, hosts_[h].name, buses_[h][b].receptacle_id, peer, message});
  }

  void index() {
    for (size_t h = 0; h < buses_.size(); ++h) {
      for (size_t b = 0; b < buses_[h].size(); ++b) {
        const std::string& uuid = buses_[h][b].domain_uuid;
        if (uuid.empty()) continue;
        auto [it, added] = by_uuid_.emplace(uuid, PortRef{h, b});
        if (!added)
          finding("duplicate-uuid", h, b, hosts_[it->second.host].name,
                  fmt::format(
                      "{} has the same Thunderbolt domain UUID as {}; is one machine listed twice?",
                      port_text(h, b), port_text(it->second.host, it->second.bus)));
      }
    }
  }

  // Each bus claims the first probed Mac found on it; other Macs on it become findings.
  void claim() {
    claims_.resize(buses_.size());
    for (size_t h = 0; h < buses_.size(); ++h) {
      claims_[h].resize(buses_[h].size());
      for (size_t b = 0; b < buses_[h].size(); ++b) {
        for (const TbPeer& peer : buses_[h][b].peers) {
          auto it = by_uuid_.find(peer.domain_uuid);
          if (it == by_uuid_.end()) {
            finding("unknown-peer", h, b, describe_peer(peer),
                    fmt::format("{} is cabled to {}{} (its bus {}), which is not among the probed "
                                "hosts; add it to "
                                "the host list to record the cable",
                                port_text(h, b), describe_peer(peer), via_text(peer),
                                peer.domain_uuid));
          } else if (it->second.host == h) {
            finding("self-cable", h, b, hosts_[h].name,
                    fmt::format("{} is cabled to {} of the same host", port_text(h, b),
                                port_text(it->second.host, it->second.bus)));
          } else if (!claims_[h][b]) {
            claims_[h][b] = Claim{it->second, &peer};
          } else {
            finding(
                "extra-peer", h, b, hosts_[it->second.host].name,
                fmt::format(
                    "{} also reaches {}{}; only the first Mac on a port is recorded as its cable",
                    port_text(h, b), port_text(it->second.host, it->second.bus), via_text(peer)));
          }
        }
      }
    }
  }

  void connect() {
    std::set<PortRef> used;
    for (size_t h = 0; h < claims_.size(); ++h) {
      for (size_t b = 0; b < claims_[h].size(); ++b) {
        if (!claims_[h][b]) continue;
        PortRef from{h, b}, to = claims_[h][b]->to;
        const std::optional<Claim>& back = claims_[to.host][to.bus];
        bool symmetric = back && back->to == from;
        if (symmetric && to < from) continue;  // made from the other side already
        if (back && !symmetric) {
          finding("conflicting-cable", h, b, hosts_[to.host].name,
                  fmt::format("{} sees {}, but that port sees {}; the cable is left out",
                              port_text(h, b), port_text(to.host, to.bus),
                              port_text(back->to.host, back->to.bus)));
          continue;
        }
        if (used.count(from) || used.count(to)) {
          finding("conflicting-cable", h, b, hosts_[to.host].name,
                  fmt::format("{} sees {}, which already has a cable; the cable is left out",
                              port_text(h, b), port_text(to.host, to.bus)));
          continue;
        }
        used.insert(from);
        used.insert(to);
        std::optional<Claim> other = back;
        out_.cables.push_back(
            make_cable(from, to, *claims_[h][b]->peer, other ? other->peer : nullptr));
        if (!symmetric)
          finding("one-sided-cable", h, b, hosts_[to.host].name,
                  fmt::format("{} sees {}, but {} does not see {} on that port; the cable is "
                              "recorded from one side",
                              port_text(h, b), port_text(to.host, to.bus), hosts_[to.host].name,
                              hosts_[h].name));
      }
    }
  }

  Cable make_cable(PortRef x, PortRef y, const TbPeer& seen_from_x,
                   const TbPeer* seen_from_y) const {
    if (y < x) std::swap(x, y);
    const TbBus& bx = buses_[x.host][x.bus];
    const TbBus& by = buses_[y.host][y.bus];
    Cable c;
    c.a = {hosts_[x.host].name, bx.receptacle_id};
    c.b = {hosts_[y.host].name, by.receptacle_id};
    double sx = bx.speed_gbps, sy = by.speed_gbps;
    double speed = (sx > 0 && sy > 0) ? std::min(sx, sy) : std::max(sx, sy);
    const ThunderboltPort* px = hosts_[x.host].find_port(bx.receptacle_id);
    const ThunderboltPort* py = hosts_[y.host].find_port(by.receptacle_id);
    int gx = px ? px->generation : 0, gy = py ? py->generation : 0;
    bool tb3 = seen_from_x.via_thunderbolt3 || (seen_from_y && seen_from_y->via_thunderbolt3) ||
               gx == 3 || gy == 3;
    if (speed > 40) {
      c.kind = LinkKind::kTb5;
    } else if (speed > 0) {
      c.kind = tb3 ? LinkKind::kTb3 : LinkKind::kTb4;
    } else {
      int g = gx && gy ? std::min(gx, gy) : std::max(gx, gy);
      c.kind = g == 5 ? LinkKind::kTb5 : g == 3 ? LinkKind::kTb3 : LinkKind::kTb4;
      speed = catalog_.default_speed_gbps(c.kind);
    }
    c.speed_gbps = speed;
    c.rdma = c.kind == LinkKind::kTb5 && hosts_[x.host].rdma_enabled.value_or(false) &&
             hosts_[y.host].rdma_enabled.value_or(false);
    return c;
  }

  const std::vector<Host>& hosts_;
  const std::vector<std::vector<TbBus>>& buses_;
  const Catalog& catalog_;
  std::map<std::string, PortRef> by_uuid_;
  std::vector<std::vector<std::optional<Claim>>> claims_;
  CableMatch out_;
};

struct IfRef {
  size_t host = 0;
  std::string interface;
  auto operator<=>(const IfRef&) const = default;
};

}  // namespace

CableMatch match_network_cables(const std::vector<Host>& hosts,
                                const std::vector<std::vector<NetSighting>>& sightings,
                                const Catalog& catalog) {
  // Which probed interface owns each MAC; a MAC on two interfaces (bonds, clones) is ambiguous.
  std::map<std::string, IfRef> owner;
  std::set<std::string> ambiguous;
  for (size_t h = 0; h < hosts.size(); ++h) {
    for (const auto& i : hosts[h].interfaces) {
      if (i.mac.empty()) continue;
      if (!owner.emplace(i.mac, IfRef{h, i.name}).second) ambiguous.insert(i.mac);
    }
  }
  for (const auto& m : ambiguous)
    owner.erase(m);
  // The one probed interface a sighting sees, or nothing when it sees none or several, or any
  // device that is not a probed interface of another host.
  std::map<IfRef, std::optional<IfRef>> sole;
  for (size_t h = 0; h < sightings.size() && h < hosts.size(); ++h) {
    for (const auto& s : sightings[h]) {
      std::optional<IfRef> peer;
      bool direct = !s.macs.empty();
      for (const auto& mac : s.macs) {
        auto it = owner.find(mac);
        if (it == owner.end() || it->second.host == h || (peer && *peer != it->second)) {
          direct = false;
          break;
        }
        peer = it->second;
      }
      sole[IfRef{h, s.interface}] = direct ? peer : std::nullopt;
    }
  }
  CableMatch out;
  std::set<IfRef> used;
  for (const auto& [from, to] : sole) {
    if (!to || used.count(from) || used.count(*to)) continue;
    auto back = sole.find(*to);
    bool seen_back = back != sole.end();
    if (seen_back && back->second != from) continue;  // the far end sees a switch or another host
    used.insert(from);
    used.insert(*to);
    IfRef x = from, y = *to;
    if (y < x) std::swap(x, y);
    const NetInterface* ix = hosts[x.host].find_interface(x.interface);
    const NetInterface* iy = hosts[y.host].find_interface(y.interface);
    Cable c;
    c.a = {hosts[x.host].name, "", x.interface};
    c.b = {hosts[y.host].name, "", y.interface};
    double sx = ix ? ix->speed_gbps : 0, sy = iy ? iy->speed_gbps : 0;
    double speed = (sx > 0 && sy > 0) ? std::min(sx, sy) : std::max(sx, sy);
    c.kind = ethernet_kind_for_speed(speed);
    c.speed_gbps = speed > 0 ? speed : catalog.default_speed_gbps(c.kind);
    c.rdma = ix && iy && !ix->rdma_device.empty() && !iy->rdma_device.empty();
    out.cables.push_back(std::move(c));
    if (!seen_back)
      out.findings.push_back(
          {"one-sided-cable", hosts[from.host].name, from.interface, hosts[to->host].name,
           fmt::format("{} {} sees {} {} across its cable, but {} reported no neighbours on {}; "
                       "the cable is recorded from one side",
                       hosts[from.host].name, from.interface, hosts[to->host].name, to->interface,
                       hosts[to->host].name, to->interface)});
  }
  std::stable_sort(out.cables.begin(), out.cables.end(), [&](const Cable& p, const Cable& q) {
    return std::tuple(hosts_position(hosts, p.a.host), p.a.interface,
                      hosts_position(hosts, p.b.host),
                      p.b.interface) < std::tuple(hosts_position(hosts, q.a.host), q.a.interface,
                                                  hosts_position(hosts, q.b.host), q.b.interface);
  });
  return out;
}

CableMatch match_cables(const std::vector<Host>& hosts,
                        const std::vector<std::vector<TbBus>>& buses, const Catalog& catalog) {
  return Matcher(hosts, buses, catalog).run();
}

}  // namespace meshplan
