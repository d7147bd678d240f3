// The steps a plan needs on its hosts before the engine starts, as `emit all` writes them
// (setup.sh, teardown.sh and LAUNCH.md's first step), per host in the order they are run: macOS's
// GPU wired limit where a rank holds more than macOS wires by default; over Thunderbolt, the
// Thunderbolt Bridge down and each cable's /30 and route (as `meshplan setup`); the /30 of each
// direct cable between the plan's hosts whose ends have no address yet (RoCE and the engine's
// sockets need one); and, for JACCL, RDMA over Thunderbolt switched on, which only macOS Recovery
// does (a comment and a guide line, not a command).
#pragma once

#include <string>
#include <vector>

namespace meshplan {

struct EmitInput;

struct HostStepLines {
  std::string host;                   // the cluster file's name
  std::string target;                 // its ssh target, the block's title
  std::vector<std::string> setup;     // commands, each after its comment, in order
  std::vector<std::string> teardown;  // the undos, the last set up first
};

struct PlanHostSteps {
  std::vector<HostStepLines> hosts;      // in the cluster file's order; hosts with a step only
  std::vector<std::string> wired;        // "studio: sudo sysctl iogpu.wired_limit_mb=N"
  std::vector<std::string> thunderbolt;  // hosts whose Thunderbolt cables are configured
  std::vector<std::string> direct;       // "spark-1: ip addr replace 192.168.0.1/30 dev IF"
  std::vector<std::string> rdma;         // Macs whose RDMA over Thunderbolt must be on
  bool empty() const { return hosts.empty() && rdma.empty(); }
};

// The host steps of the input's plan (its ranks' hosts). A failure when the cables' /30s could
// not be planned and the plan needs them.
PlanHostSteps plan_host_steps(const EmitInput& in);
// Adds `more` (another replica's hosts) to `steps`, keeping the cluster file's order.
void merge_host_steps(const EmitInput& in, PlanHostSteps& steps, PlanHostSteps more);

// setup.sh / teardown.sh: a block per host ("Setup for HOST", a rule, its lines), MLX's layout.
std::string render_host_setup(const PlanHostSteps& steps);
std::string render_host_teardown(const PlanHostSteps& steps);
// LAUNCH.md's first step: what to run where before the engine, and what undoes it.
std::string host_steps_guide(const PlanHostSteps& steps);

}  // namespace meshplan
