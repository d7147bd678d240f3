// The commands `setup --apply` and `teardown --apply` run on one host: the setup steps
// (topologies/setup_steps), less what the host's state already shows, or those teardown takes
// back that the state still shows, each with the command that undoes it. A host whose plan would
// touch an interface that is missing, or that carries the SSH session or the default route, gets
// refusals instead and nothing is run anywhere.
#pragma once

#include <string>
#include <vector>

#include "deploy/configure/host_state.hpp"
#include "topologies/setup_steps.hpp"

namespace meshplan {

struct ApplyStep {
  std::string what;     // "192.168.0.1/30 on eth1"
  std::string command;  // run as it is, one line of sh
  std::string undo;     // puts back what `command` changed
};

struct HostSteps {
  std::vector<ApplyStep> steps;       // in order; empty: the host is as planned already
  std::vector<std::string> refusals;  // why nothing may run on this host
};

// Brings the host to the plan: bridge0 down (macOS), each interface up with its /30 address and
// (Thunderbolt) the peer's route through it. An undo puts back the address or route a step
// replaced.
HostSteps setup_steps(const HostSetup& host, const HostState& state);
// Takes back what setup configured and the host still has: routes and addresses (last configured
// first), then bridge0 up where the plan says it was up.
HostSteps teardown_steps(const HostSetup& host, const HostState& state);

}  // namespace meshplan
