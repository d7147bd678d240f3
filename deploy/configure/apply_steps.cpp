#include "deploy/configure/apply_steps.hpp"

#include <fmt/format.h>

#include <optional>

namespace meshplan {
namespace {

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

std::string with_prefix(const SetupStep& s) {
  return fmt::format("{}/{}", s.address, s.prefix);
}

// Whether the state shows the setup step's change: setup then skips it, teardown takes it back.
bool shows_change(const SetupStep& step, const HostState& s) {
  switch (step.change) {
    case StepChange::kBridgeDown: {
      const InterfaceState* bridge = s.find("bridge0");
      return bridge && !bridge->up;
    }
    case StepChange::kLinkUp:
      return s.find(step.interface)->up;
    case StepChange::kAddress:
      return s.find(step.interface)->has(with_prefix(step));
    case StepChange::kRoute: {
      auto route = s.routes.find(step.address);
      return route != s.routes.end() && route->second == step.interface;
    }
  }
  return false;
}

// The setup step as this host needs it: none when the state shows its change already, else with
// the undo that puts back what the state had where the step replaces it (an address, a route).
std::optional<ApplyStep> needed_step(const SetupStep& step, const HostState& s) {
  const std::string sudo = s.privileged();
  ApplyStep out{step.what(), step.command(sudo), step.undo(sudo)};
  SetupStep before = step;
  if (step.change == StepChange::kAddress && !step.linux) {
    // macOS: the command replaces the interface's first address; the undo puts that one back.
    const InterfaceState& i = *s.find(step.interface);
    if (i.addresses.empty()) return out;
    const std::string& had = i.addresses.front();
    if (had == with_prefix(step)) return std::nullopt;
    before.address = had.substr(0, had.find('/'));
    before.prefix = std::stoi(had.substr(had.find('/') + 1));
    out.undo = before.command(sudo);
    return out;
  }
  if (shows_change(step, s)) return std::nullopt;
  if (step.change == StepChange::kBridgeDown && !s.find("bridge0")) return std::nullopt;
  auto route = s.routes.find(step.address);
  if (step.change == StepChange::kRoute && route != s.routes.end()) {
    before.interface = route->second;
    out.undo = before.command(sudo);
  }
  return out;
}

}  // namespace

HostSteps setup_steps(const HostSetup& host, const HostState& s) {
  HostSteps r;
  r.refusals = refusals(host, s);
  if (!r.refusals.empty()) return r;
  for (const SetupStep& step : setup_steps(host))
    if (std::optional<ApplyStep> a = needed_step(step, s)) r.steps.push_back(std::move(*a));
  return r;
}

HostSteps teardown_steps(const HostSetup& host, const HostState& s) {
  HostSteps r;
  r.refusals = refusals(host, s);
  if (!r.refusals.empty()) return r;
  const std::string sudo = s.privileged();
  for (const SetupStep& step : teardown_steps(host))
    if (shows_change(step, s))
      r.steps.push_back({step.what_undone(), step.undo(sudo), step.command(sudo)});
  return r;
}

}  // namespace meshplan
