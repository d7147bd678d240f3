// Checks beyond the cable graph: what discovery could not match, the Thunderbolt Bridge, address
// ranges, and the RDMA state of each host (declared in backend_rules.hpp).
#include <fmt/format.h>

#include <map>
#include <set>

#include "topologies/backend_rules.hpp"
#include "topologies/host_networks.hpp"

namespace meshplan {
namespace {

// "26.2.1" -> {26, 2, 1}; non-numbers end the list.
std::vector<int> version_parts(const std::string& text) {
  std::vector<int> out;
  int cur = -1;
  for (char c : text) {
    if (c >= '0' && c <= '9') {
      cur = (cur < 0 ? 0 : cur * 10) + (c - '0');
    } else if (c == '.' && cur >= 0) {
      out.push_back(cur);
      cur = -1;
    } else {
      break;
    }
  }
  if (cur >= 0) out.push_back(cur);
  return out;
}

bool has_tb5_hardware(const TopologyContext& ctx, size_t h) {
  const Host& host = ctx.cluster.hosts[h];
  if (host.ports.empty()) return true;  // unknown: do not claim otherwise
  for (const auto& p : host.ports)
    if (p.generation == 0 || p.generation >= 5) return true;
  return false;
}

}  // namespace

std::vector<CheckIssue> rdma_host_issues(const TopologyContext& ctx,
                                         const std::vector<size_t>& members,
                                         const std::string& backend) {
  std::vector<CheckIssue> out;
  std::map<std::string, std::vector<std::string>> builds;
  std::set<size_t> in(members.begin(), members.end());
  for (size_t h : members) {
    const Host& host = ctx.cluster.hosts[h];
    if (!host.rdma_enabled.value_or(false)) {
      if (host.os.kind == "linux") {
        out.push_back(make_issue(
            "not-a-mac", Severity::kError, backend, {host.name},
            fmt::format("{} runs Linux; JACCL (RDMA over Thunderbolt) runs on Macs only",
                        host.name),
            fmt::format("use the ring or ethernet backend, or leave {} out", host.name)));
      } else if (!has_tb5_hardware(ctx, h)) {
        out.push_back(make_issue(
            "no-tb5-hardware", Severity::kError, backend, {host.name},
            fmt::format("{} has no Thunderbolt 5 port; RDMA over Thunderbolt needs Thunderbolt 5",
                        host.name),
            fmt::format("use the ring backend (TCP over Thunderbolt), or leave {} out",
                        host.name)));
      } else {
        out.push_back(make_issue(
            "rdma-disabled", Severity::kError, backend, {host.name},
            fmt::format("{} does not seem to have RDMA enabled{}", host.name,
                        host.rdma_enabled ? "" : " (the cluster file does not say it is)"),
            "in macOS Recovery open Terminal, run `rdma_ctl enable`, restart, and check that "
            "`ibv_devices` lists "
            "rdma_en* devices (needs macOS 26.2 or later); then run `meshplan discover` again"));
      }
    }
    if (host.os.kind == "macos" && !host.os.version.empty()) {
      std::vector<int> v = version_parts(host.os.version);
      if (!v.empty() && (v[0] < 26 || (v[0] == 26 && (v.size() < 2 || v[1] < 2)))) {
        out.push_back(
            make_issue("macos-too-old", Severity::kError, backend, {host.name},
                       fmt::format("RDMA over Thunderbolt needs macOS 26.2 or later; {} runs {}",
                                   host.name, host.os.version),
                       fmt::format("update {} to macOS 26.2 or later", host.name)));
      }
    }
    if (host.rdma_enabled.value_or(false) && !host.os.build.empty())
      builds[host.os.build].push_back(host.name);
    for (const auto& port : ctx.fabric.ports(h)) {
      if (port.cable < 0) continue;
      const FabricCable& c = ctx.fabric.cables()[static_cast<size_t>(port.cable)];
      const ThunderboltPort* tp = host.find_port(port.id);
      if (!c.rdma || !in.count(c.other(h).host) || !tp || tp->rdma_state.empty() ||
          tp->rdma_state == "PORT_ACTIVE")
        continue;
      out.push_back(make_issue(
          "rdma-port-down", Severity::kWarning, backend, {host.name},
          fmt::format("{} on {} (port {}) is {}, not PORT_ACTIVE", port.rdma_device, host.name,
                      port.id, tp->rdma_state),
          "the Mac at the other end needs RDMA enabled too; check the cable and that the "
          "Thunderbolt Bridge is down"));
    }
  }
  if (builds.size() > 1) {
    std::string which;
    std::vector<std::string> hosts;
    for (const auto& [build, names] : builds) {
      which += fmt::format("{}{} {}", which.empty() ? "" : "; ", join_names(names), build);
      hosts.insert(hosts.end(), names.begin(), names.end());
    }
    out.push_back(make_issue(
        "macos-build-mismatch", Severity::kWarning, backend, hosts,
        "the RDMA hosts run different macOS builds (" + which + ")",
        "update every host to the same macOS build; JACCL is tested with matching builds"));
  }
  return out;
}

std::vector<CheckIssue> coordinator_issues(const TopologyContext& ctx, size_t rank0,
                                           const std::string& backend) {
  const Host& host = ctx.cluster.hosts[rank0];
  ManagementAddress m = management_address(host);
  if (!m.address.empty()) return {};
  if (m.on_thunderbolt) {
    return {make_issue(
        "coordinator-on-thunderbolt", Severity::kError, backend, {host.name},
        fmt::format("rank 0 ({}): {}; JACCL's coordinator (MLX_JACCL_COORDINATOR) must not be a "
                    "Thunderbolt address",
                    host.name, m.problem),
        fmt::format(
            "connect {}'s en0 (Ethernet or Wi-Fi) to the network the other hosts use, then run "
            "`meshplan discover` again",
            host.name))};
  }
  return {make_issue(
      "no-coordinator-address", Severity::kWarning, backend, {host.name},
      fmt::format(
          "rank 0 ({}): {}; JACCL's coordinator needs it, so `emit mlx-hostfile` cannot write "
          "this backend yet",
          host.name, m.problem),
      fmt::format("run `meshplan discover`, or add en0 with its ipv4 to {}'s interfaces",
                  host.name))};
}

std::vector<CheckIssue> cluster_issues(const TopologyContext& ctx,
                                       const std::vector<size_t>& members) {
  std::vector<CheckIssue> out;
  std::set<std::string> names;
  for (size_t h : members)
    names.insert(ctx.cluster.hosts[h].name);
  for (const auto& f : ctx.cluster.findings) {
    if (!f.host.empty() && !names.count(f.host)) continue;
    std::string where = f.port.empty() ? f.host : fmt::format("{} port {}", f.host, f.port);
    if (f.kind == "one-sided-cable") {
      out.push_back(make_issue(
          "one-sided-cable", Severity::kWarning, "", {f.host},
          fmt::format("cable seen from one side only: {}",
                      f.message.empty()
                          ? fmt::format("{} sees {}, which does not see it back", where, f.peer)
                          : f.message),
          "reseat the cable at both ends; a hub or dock in between hides the peer, so connect the "
          "Macs directly; then "
          "run `meshplan discover` again"));
    } else if (f.kind == "unknown-peer") {
      out.push_back(make_issue(
          "unknown-peer", Severity::kNote, "", {f.host},
          f.message.empty()
              ? fmt::format("{} is connected to {}, which is not in the cluster", where, f.peer)
              : f.message,
          "discover that host too, or unplug the cable to free the port"));
    } else {
      out.push_back(make_issue(f.kind, Severity::kWarning, "", {f.host},
                               f.message.empty() ? fmt::format("{}: {}", where, f.kind) : f.message,
                               ""));
    }
  }
  for (size_t c : ctx.fabric.loop_cables()) {
    const Cable& cable = ctx.cluster.cables[c];
    if (!names.count(cable.a.host)) continue;
    out.push_back(make_issue("loop-cable", Severity::kWarning, "", {cable.a.host},
                             fmt::format("a cable joins {} port {} to port {} of the same host",
                                         cable.a.host, cable.a.port, cable.b.port),
                             "unplug it; it carries nothing and takes two ports"));
  }
  for (size_t h : members) {
    const Host& host = ctx.cluster.hosts[h];
    if (!host.thunderbolt_bridge) continue;
    std::vector<std::string> held;
    for (const auto& m : host.thunderbolt_bridge->members) {
      const ThunderboltPort* p = host.find_port_by_interface(m);
      for (const auto& fp : ctx.fabric.ports(h))
        if (p && fp.id == p->id && fp.cable >= 0) held.push_back(m);
    }
    if (!host.thunderbolt_bridge->up) {
      if (held.empty()) continue;
      out.push_back(make_issue(
          "bridge-members", Severity::kNote, "", {host.name},
          fmt::format(
              "Thunderbolt Bridge (bridge0) is down on {} but still lists {} that the cables use",
              host.name, join_names(held)),
          "if RDMA fails with errno 22, remove the Thunderbolt Bridge service in System Settings > "
          "Network"));
      continue;
    }
    std::string message = fmt::format("Thunderbolt Bridge (bridge0) is up on {}", host.name);
    if (!held.empty()) message += fmt::format(", holding {} that the cables use", join_names(held));
    if (!host.thunderbolt_bridge->ipv4.empty())
      message += fmt::format(", with address {} (a DHCP lease there can take the default route)",
                             host.thunderbolt_bridge->ipv4);
    message += "; RDMA fails (errno 22) and rings can loop while it is up";
    out.push_back(make_issue(
        "bridge-up", Severity::kWarning, "", {host.name}, message,
        "`meshplan setup` takes it down (sudo ifconfig bridge0 down); to keep it down after a "
        "restart, remove the Thunderbolt Bridge service in System Settings > Network"));
  }
  for (const auto& note : ctx.subnets.notes)
    out.push_back(make_issue("subnet-skipped", Severity::kNote, "", {}, note, ""));
  return out;
}

}  // namespace meshplan
