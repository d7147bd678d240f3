#include "deploy/emit/host_steps.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "deploy/layout/launch_nodes.hpp"
#include "deploy/writers/wired_limits.hpp"
#include "lib/core/error.hpp"
#include "topologies/setup_commands.hpp"
#include "topologies/setup_steps.hpp"

namespace meshplan {
namespace {

bool over_thunderbolt(const std::string& transport) {
  return transport == "thunderbolt" || transport == "rdma";
}

// The direct cables between two of `hosts` that `meshplan setup` gives a /30, as the setup of each
// end (the other hosts' cables are not the plan's).
std::vector<HostSetup> direct_cable_setups(const EmitInput& in,
                                           const std::vector<std::string>& hosts) {
  auto in_plan = [&](const std::string& h) {
    return std::find(hosts.begin(), hosts.end(), h) != hosts.end();
  };
  std::vector<HostSetup> out;
  for (const Host& h : in.cluster.hosts) {
    if (!in_plan(h.name)) continue;
    HostSetup s;
    s.host = h.name;
    s.ssh = h.ssh_target();
    s.linux = h.os.kind == "linux";
    for (const DirectCableAddresses& d : in.topology.subnets.direct) {
      const Cable& c = in.cluster.cables[d.cable];
      if (!in_plan(c.a.host) || !in_plan(c.b.host)) continue;
      if (c.a.host == h.name) s.direct.push_back({c.a.interface, d.a_address, d.b_address});
      if (c.b.host == h.name) s.direct.push_back({c.b.interface, d.b_address, d.a_address});
    }
    if (!s.direct.empty()) out.push_back(std::move(s));
  }
  return out;
}

// The interface setups of the plan's hosts: over Thunderbolt, `meshplan setup`'s (Thunderbolt
// Bridge, cables, direct cables); else the direct cables between them only.
std::vector<HostSetup> interface_setups(const EmitInput& in, const LaunchLayout& layout) {
  std::vector<std::string> hosts;
  for (const LaunchNode& n : layout.nodes)
    hosts.push_back(n.host->name);
  if (!over_thunderbolt(layout.transport) || hosts.size() < 2)
    return direct_cable_setups(in, hosts);
  if (!in.topology.subnet_error.empty()) throw failure("{}", in.topology.subnet_error);
  std::vector<HostSetup> out = host_setups(in.topology.fabric, in.topology.subnets);
  std::erase_if(out, [&](const HostSetup& h) {
    return std::find(hosts.begin(), hosts.end(), h.host) == hosts.end();
  });
  return out;
}

HostStepLines& steps_of(PlanHostSteps& out, const Host& host) {
  for (HostStepLines& h : out.hosts)
    if (h.host == host.name) return h;
  out.hosts.push_back({host.name, host.ssh_target(), {}, {}});
  return out.hosts.back();
}

// macOS's GPU wired limit where a rank holds more than macOS wires by default; teardown puts back
// the limit the cluster file recorded, else 0, macOS's default.
void add_wired_limits(const EmitInput& in, const LaunchLayout& layout, PlanHostSteps& out) {
  for (const LaunchNode& n : layout.nodes) {
    int64_t mb = 0;
    for (const PlanRank& r : in.plan->ranks)
      if (r.host == n.host->name) mb = std::max(mb, r.wired_limit_mb);
    if (mb <= 0) continue;
    const std::string command = wired_limit_command(mb);
    HostStepLines& h = steps_of(out, *n.host);
    h.setup.push_back("# the plan holds more than macOS wires for the GPU by default");
    h.setup.push_back(command);
    const int64_t before = n.host->wired_limit_mb.value_or(0);
    h.teardown.push_back(fmt::format("# the GPU wired limit back to {}",
                                     before > 0 ? std::to_string(before) : "macOS's default"));
    h.teardown.push_back(wired_limit_command(before));
    out.wired.push_back(fmt::format("{}: `{}`", n.host->name, command));
  }
}

// JACCL: RDMA over Thunderbolt is switched on once per Mac, in macOS Recovery (no command here).
void add_rdma(const LaunchLayout& layout, PlanHostSteps& out) {
  if (layout.transport != "rdma") return;
  for (const LaunchNode& n : layout.nodes) {
    if (!n.mac) continue;
    steps_of(out, *n.host)
        .setup.push_back(fmt::format(
            "# RDMA over Thunderbolt must be on (once, in macOS Recovery: rdma_ctl enable, then "
            "restart): ibv_devices lists {}",
            n.rdma_devices.empty() ? std::string("rdma_en*")
                                   : fmt::format("{}", fmt::join(n.rdma_devices, ", "))));
    out.rdma.push_back(n.host->name);
  }
}

void add_interfaces(const EmitInput& in, const LaunchLayout& layout, PlanHostSteps& out) {
  for (const HostSetup& s : interface_setups(in, layout)) {
    const Host* host = in.cluster.find_host(s.host);
    std::vector<std::string> setup = setup_commands(s);
    if (setup.empty()) continue;
    HostStepLines& h = steps_of(out, *host);
    h.setup.insert(h.setup.end(), setup.begin(), setup.end());
    const std::vector<std::string> undo = teardown_commands(s);
    h.teardown.insert(h.teardown.begin(), undo.begin(), undo.end());
    if (!s.links.empty() || (over_thunderbolt(layout.transport) && !s.linux))
      out.thunderbolt.push_back(s.host);
    for (const InterfaceAddress& d : s.direct)
      out.direct.push_back(
          fmt::format("{}: `ip addr replace {}/30 dev {}`", s.host, d.address, d.interface));
  }
}

void sort_by_file_order(const EmitInput& in, PlanHostSteps& steps) {
  std::stable_sort(steps.hosts.begin(), steps.hosts.end(),
                   [&](const HostStepLines& a, const HostStepLines& b) {
                     return in.cluster.host_index(a.host) < in.cluster.host_index(b.host);
                   });
}

std::string render(const PlanHostSteps& steps, const char* title,
                   std::vector<std::string> HostStepLines::*lines) {
  std::string out;
  for (const HostStepLines& h : steps.hosts)
    if (!(h.*lines).empty()) out += render_host_block(title, h.target, h.*lines);
  return out;
}

}  // namespace

PlanHostSteps plan_host_steps(const EmitInput& in) {
  require_plan(in, "setup", "the steps follow the plan's hosts and memory");
  const LaunchLayout& layout = in.layout();
  PlanHostSteps out;
  add_wired_limits(in, layout, out);
  add_rdma(layout, out);
  add_interfaces(in, layout, out);
  sort_by_file_order(in, out);
  return out;
}

void merge_host_steps(const EmitInput& in, PlanHostSteps& steps, PlanHostSteps more) {
  for (HostStepLines& h : more.hosts)
    steps.hosts.push_back(std::move(h));
  auto append = [](std::vector<std::string>& to, const std::vector<std::string>& from) {
    to.insert(to.end(), from.begin(), from.end());
  };
  append(steps.wired, more.wired);
  append(steps.thunderbolt, more.thunderbolt);
  append(steps.direct, more.direct);
  append(steps.rdma, more.rdma);
  sort_by_file_order(in, steps);
}

std::string render_host_setup(const PlanHostSteps& steps) {
  return render(steps, "Setup", &HostStepLines::setup);
}

std::string render_host_teardown(const PlanHostSteps& steps) {
  return render(steps, "Teardown", &HostStepLines::teardown);
}

std::string host_steps_guide(const PlanHostSteps& steps) {
  std::vector<std::string> items;
  if (!steps.wired.empty())
    items.push_back(fmt::format(
        "- GPU wired limit (the plan holds more than macOS wires for the GPU by default; the "
        "model does not load without it): {}.",
        fmt::join(steps.wired, ", ")));
  if (!steps.thunderbolt.empty())
    items.push_back(fmt::format(
        "- Thunderbolt on {}: the Thunderbolt Bridge (bridge0) down and each cable's /30 with the "
        "route to its peer, as mlx.distributed_config sets them.",
        fmt::join(steps.thunderbolt, ", ")));
  if (!steps.direct.empty())
    items.push_back(fmt::format(
        "- Direct cables: each end's /30 ({}); RoCE and the engine's sockets need an address on "
        "the interface, and the launch files name these.",
        fmt::join(steps.direct, ", ")));
  if (!steps.rdma.empty())
    items.push_back(fmt::format(
        "- RDMA over Thunderbolt on {}: switched on once per Mac in macOS Recovery (Terminal: "
        "`rdma_ctl enable`, then restart); `ibv_devices` must list the rdma_en* devices before "
        "the launch.",
        fmt::join(steps.rdma, ", ")));
  // `meshplan setup --apply` runs the interface steps; the wired limit it only prints.
  const bool interfaces = !steps.thunderbolt.empty() || !steps.direct.empty();
  const std::string apply =
      !interfaces ? "`meshplan setup --plan PLAN` prints the wired limit too"
      : steps.wired.empty()
          ? "`meshplan setup --plan PLAN --apply` runs them over ssh"
          : "`meshplan setup --plan PLAN --apply` runs the interface steps over ssh and prints the "
            "wired limit";
  return fmt::format(
      "Run each host's block of `setup.sh` on that host before any engine starts ({}). The "
      "settings do not survive a restart: run them again after one. `teardown.sh` undoes "
      "them.\n\n{}\n",
      apply, fmt::join(items, "\n"));
}

}  // namespace meshplan
