#include "lib/configure/apply_steps.hpp"

#include <fmt/format.h>

#include "lib/core/shell_quote.hpp"

namespace meshplan {
namespace {

constexpr const char* kMask30 = "255.255.255.252";

bool touches_bridge(const HostSetup& host) {
  return !host.linux && (!host.links.empty() || host.direct.empty());
}

// Every interface the plan names must exist and must not be the one we are talking over.
std::vector<std::string> refusals(const HostSetup& host, const HostState& state) {
  std::vector<std::string> out;
  auto check = [&](const std::string& name) {
    if (!state.find(name))
      out.push_back(fmt::format("interface {} is not on the host (rediscover the cluster)", name));
    else if (name == state.ssh_interface)
      out.push_back(fmt::format("interface {} carries this SSH session; it is left alone", name));
    else if (name == state.default_interface)
      out.push_back(fmt::format("interface {} carries the default route; it is left alone", name));
  };
  for (const auto& l : host.links)
    check(l.interface);
  for (const auto& l : host.direct)
    check(l.interface);
  if (host.linux != !state.macos)
    out.push_back(fmt::format("the cluster file says {} but the host runs {}",
                              host.linux ? "Linux" : "macOS", state.macos ? "macOS" : "Linux"));
  return out;
}

// macOS: `ifconfig IF inet A netmask M` replaces the interface's first address.
std::string first_address(const InterfaceState& i) {
  return i.addresses.empty() ? "" : i.addresses.front();
}

std::string mask_of(const std::string& address_with_prefix) {
  int p = std::stoi(address_with_prefix.substr(address_with_prefix.find('/') + 1));
  uint32_t m = p == 0 ? 0 : ~uint32_t{0} << (32 - p);
  return fmt::format("{}.{}.{}.{}", m >> 24, (m >> 16) & 255, (m >> 8) & 255, m & 255);
}

void mac_address_step(const HostState& s, const InterfaceAddress& l, std::vector<ApplyStep>& out) {
  const InterfaceState& i = *s.find(l.interface);
  const std::string want = l.address + "/30", q = shell_quote(l.interface), sudo = s.privileged();
  const std::string had = first_address(i);
  if (had == want) return;
  std::string undo = had.empty() ? fmt::format("{}ifconfig {} inet {} delete", sudo, q, l.address)
                                 : fmt::format("{}ifconfig {} inet {} netmask {}", sudo, q,
                                               had.substr(0, had.find('/')), mask_of(had));
  out.push_back({fmt::format("{} on {}", want, l.interface),
                 fmt::format("{}ifconfig {} inet {} netmask {}", sudo, q, l.address, kMask30),
                 undo});
}

}  // namespace

HostSteps setup_steps(const HostSetup& host, const HostState& s) {
  HostSteps r;
  r.refusals = refusals(host, s);
  if (!r.refusals.empty()) return r;
  const std::string sudo = s.privileged();
  if (touches_bridge(host)) {
    const InterfaceState* bridge = s.find("bridge0");
    if (bridge && bridge->up)
      r.steps.push_back(
          {"bridge0 down", sudo + "ifconfig bridge0 down", sudo + "ifconfig bridge0 up"});
  }
  for (const auto& l : host.links) {
    mac_address_step(s, l, r.steps);
    auto route = s.routes.find(l.peer_address);
    if (route != s.routes.end() && route->second == l.interface) continue;
    const std::string q = shell_quote(l.interface);
    std::string undo = route == s.routes.end()
                           ? fmt::format("{}route delete {} -interface {}", sudo, l.peer_address, q)
                           : fmt::format("{}route change {} -interface {}", sudo, l.peer_address,
                                         shell_quote(route->second));
    r.steps.push_back({fmt::format("route to {} through {}", l.peer_address, l.interface),
                       fmt::format("{}route change {} -interface {}", sudo, l.peer_address, q),
                       undo});
  }
  for (const auto& l : host.direct) {
    if (!host.linux) {
      mac_address_step(s, l, r.steps);
      continue;
    }
    const InterfaceState& i = *s.find(l.interface);
    const std::string q = shell_quote(l.interface);
    if (!i.up)
      r.steps.push_back({fmt::format("{} up", l.interface),
                         fmt::format("{}ip link set dev {} up", sudo, q),
                         fmt::format("{}ip link set dev {} down", sudo, q)});
    if (!i.has(l.address + "/30"))
      r.steps.push_back({fmt::format("{}/30 on {}", l.address, l.interface),
                         fmt::format("{}ip addr replace {}/30 dev {}", sudo, l.address, q),
                         fmt::format("{}ip addr del {}/30 dev {}", sudo, l.address, q)});
  }
  return r;
}

HostSteps teardown_steps(const HostSetup& host, const HostState& s) {
  HostSteps r;
  r.refusals = refusals(host, s);
  if (!r.refusals.empty()) return r;
  const std::string sudo = s.privileged();
  for (auto it = host.direct.rbegin(); it != host.direct.rend(); ++it) {
    if (!s.find(it->interface)->has(it->address + "/30")) continue;
    const std::string q = shell_quote(it->interface);
    if (host.linux)
      r.steps.push_back({fmt::format("{}/30 off {}", it->address, it->interface),
                         fmt::format("{}ip addr del {}/30 dev {}", sudo, it->address, q),
                         fmt::format("{}ip addr replace {}/30 dev {}", sudo, it->address, q)});
    else
      r.steps.push_back(
          {fmt::format("{}/30 off {}", it->address, it->interface),
           fmt::format("{}ifconfig {} inet {} delete", sudo, q, it->address),
           fmt::format("{}ifconfig {} inet {} netmask {}", sudo, q, it->address, kMask30)});
  }
  for (auto it = host.links.rbegin(); it != host.links.rend(); ++it) {
    const std::string q = shell_quote(it->interface);
    auto route = s.routes.find(it->peer_address);
    if (route != s.routes.end() && route->second == it->interface)
      r.steps.push_back(
          {fmt::format("route to {} off {}", it->peer_address, it->interface),
           fmt::format("{}route delete {} -interface {}", sudo, it->peer_address, q),
           fmt::format("{}route change {} -interface {}", sudo, it->peer_address, q)});
    if (s.find(it->interface)->has(it->address + "/30"))
      r.steps.push_back(
          {fmt::format("{}/30 off {}", it->address, it->interface),
           fmt::format("{}ifconfig {} inet {} delete", sudo, q, it->address),
           fmt::format("{}ifconfig {} inet {} netmask {}", sudo, q, it->address, kMask30)});
  }
  if (host.restore_bridge && touches_bridge(host)) {
    const InterfaceState* bridge = s.find("bridge0");
    if (bridge && !bridge->up)
      r.steps.push_back(
          {"bridge0 up", sudo + "ifconfig bridge0 up", sudo + "ifconfig bridge0 down"});
  }
  return r;
}

}  // namespace meshplan
