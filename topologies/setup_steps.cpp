#include "topologies/setup_steps.hpp"

#include <fmt/format.h>

#include "lib/core/shell_quote.hpp"

namespace meshplan {
namespace {

std::string dotted_netmask(int prefix) {
  return ipv4_text(prefix == 0 ? 0 : ~uint32_t{0} << (32 - prefix));
}

// A step and its undo are the two directions of one change; `on` picks the direction.
std::string step_command(const SetupStep& s, std::string_view sudo, bool on) {
  const std::string q = shell_quote(s.interface);
  switch (s.change) {
    case StepChange::kBridgeDown:
      return fmt::format("{}ifconfig bridge0 {}", sudo, on ? "down" : "up");
    case StepChange::kLinkUp:
      return fmt::format("{}ip link set dev {} {}", sudo, q, on ? "up" : "down");
    case StepChange::kAddress:
      if (s.linux)
        return fmt::format("{}ip addr {} {}/{} dev {}", sudo, on ? "replace" : "del", s.address,
                           s.prefix, q);
      // `ifconfig IF inet A netmask M` replaces the interface's first address.
      return on ? fmt::format("{}ifconfig {} inet {} netmask {}", sudo, q, s.address,
                              dotted_netmask(s.prefix))
                : fmt::format("{}ifconfig {} inet {} delete", sudo, q, s.address);
    case StepChange::kRoute:
      return fmt::format("{}route {} {} -interface {}", sudo, on ? "change" : "delete", s.address,
                         q);
  }
  return "";
}

std::string step_what(const SetupStep& s, bool on) {
  switch (s.change) {
    case StepChange::kBridgeDown:
      return on ? "bridge0 down" : "bridge0 up";
    case StepChange::kLinkUp:
      return fmt::format("{} {}", s.interface, on ? "up" : "down");
    case StepChange::kAddress:
      return fmt::format("{}/{} {} {}", s.address, s.prefix, on ? "on" : "off", s.interface);
    case StepChange::kRoute:
      return fmt::format("route to {} {} {}", s.address, on ? "through" : "off", s.interface);
  }
  return "";
}

// A Mac's Thunderbolt Bridge goes down for its Thunderbolt cables (and, as MLX does, on a Mac with
// nothing else to configure); Linux has none, and direct network cables do not need it down.
bool takes_bridge_down(const HostSetup& host) {
  return !host.linux && (!host.links.empty() || host.direct.empty());
}

}  // namespace

std::string SetupStep::what() const {
  return step_what(*this, true);
}
std::string SetupStep::what_undone() const {
  return step_what(*this, false);
}
std::string SetupStep::command(std::string_view sudo) const {
  return step_command(*this, sudo, true);
}
std::string SetupStep::undo(std::string_view sudo) const {
  return step_command(*this, sudo, false);
}

std::vector<SetupStep> setup_steps(const HostSetup& host) {
  std::vector<SetupStep> out;
  if (takes_bridge_down(host))
    out.push_back({.change = StepChange::kBridgeDown, .interface = "bridge0", .address = ""});
  // Thunderbolt cables are configured as MLX does, with ifconfig and route.
  for (const auto& l : host.links) {
    out.push_back({.change = StepChange::kAddress, .interface = l.interface, .address = l.address});
    out.push_back(
        {.change = StepChange::kRoute, .interface = l.interface, .address = l.peer_address});
  }
  for (const auto& l : host.direct) {
    if (host.linux)
      out.push_back(
          {.change = StepChange::kLinkUp, .linux = true, .interface = l.interface, .address = ""});
    out.push_back({.change = StepChange::kAddress,
                   .linux = host.linux,
                   .interface = l.interface,
                   .address = l.address});
  }
  return out;
}

std::vector<SetupStep> teardown_steps(const HostSetup& host) {
  std::vector<SetupStep> out;
  std::vector<SetupStep> steps = setup_steps(host);
  for (auto it = steps.rbegin(); it != steps.rend(); ++it) {
    if (it->change == StepChange::kLinkUp) continue;
    if (it->change == StepChange::kBridgeDown && !host.restore_bridge) continue;
    out.push_back(*it);
  }
  return out;
}

}  // namespace meshplan
