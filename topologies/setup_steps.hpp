// The steps `setup` takes on one host, each with what it changes, the command that makes the
// change and the one that takes it back, in the host's OS's tools. The printed setup is their
// commands, the printed teardown their undos (last first), and `setup --apply` / `teardown
// --apply` run them where the host's state differs (deploy/configure/apply_steps).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "topologies/subnet_plan.hpp"

namespace meshplan {

enum class StepChange {
  kBridgeDown,  // macOS's Thunderbolt Bridge, bridge0, down
  kLinkUp,      // `interface` administratively up
  kAddress,     // `address`/`prefix` on `interface`
  kRoute,       // the host route to `address` (the peer) through `interface`
};

struct SetupStep {
  StepChange change = StepChange::kAddress;
  bool linux = false;     // `ip`; else macOS's ifconfig and route
  std::string interface;  // "bridge0" for kBridgeDown
  std::string address;
  int prefix = 30;

  // "192.168.0.1/30 on en2", and once taken back "192.168.0.1/30 off en2".
  std::string what() const;
  std::string what_undone() const;
  // `sudo` runs the command as root: "sudo " where printed, "sudo -n " or "" where applied.
  std::string command(std::string_view sudo) const;
  std::string undo(std::string_view sudo) const;
};

// In order: bridge0 down (a Mac with Thunderbolt cables, or, as MLX does, with nothing else to
// configure); per Thunderbolt cable its address and the peer's route through it; per direct
// network cable its link up (Linux) and its address, whose /30 route comes with it.
std::vector<SetupStep> setup_steps(const HostSetup& host);
// What teardown takes back, last first: every setup step but a link up (the link stays up), and
// bridge0 down only where the plan says the bridge was up before.
std::vector<SetupStep> teardown_steps(const HostSetup& host);

}  // namespace meshplan
