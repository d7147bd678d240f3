#include "lib/emit/setup_commands.hpp"

#include <fmt/format.h>

#include "lib/core/shell_quote.hpp"

namespace meshplan {
namespace {

std::string render_blocks(const std::vector<HostSetup>& hosts, const char* title,
                          std::vector<std::string> (*commands)(const HostSetup&)) {
  std::string out;
  for (const auto& h : hosts) {
    if (h.linux && h.links.empty() && h.direct.empty()) continue;  // nothing to configure
    std::string heading = fmt::format("{} for {}", title, h.ssh.empty() ? h.host : h.ssh);
    out += heading + "\n" + std::string(heading.size(), '=') + "\n";
    out += render_commands(commands(h));
    out += "\n";
  }
  return out;
}

// A Mac's Thunderbolt Bridge goes down for its Thunderbolt cables (and, as MLX does, on a Mac with
// nothing else to configure); Linux has none, and direct network cables do not need it down.
bool touches_bridge(const HostSetup& host) {
  return !host.linux && (!host.links.empty() || host.direct.empty());
}

}  // namespace

std::vector<std::string> setup_commands(const HostSetup& host) {
  std::vector<std::string> out;
  if (touches_bridge(host)) out.emplace_back("sudo ifconfig bridge0 down");
  for (const auto& l : host.links) {
    std::string iface = shell_quote(l.interface);
    out.push_back(fmt::format("sudo ifconfig {} inet {} netmask {}", iface, l.address, kNetmask30));
    out.push_back(fmt::format("sudo route change {} -interface {}", l.peer_address, iface));
  }
  // Direct network cables: an address on each end; the /30 route comes with it.
  for (const auto& l : host.direct) {
    std::string iface = shell_quote(l.interface);
    if (host.linux) {
      out.push_back(fmt::format("sudo ip link set dev {} up", iface));
      out.push_back(fmt::format("sudo ip addr replace {}/30 dev {}", l.address, iface));
    } else {
      out.push_back(
          fmt::format("sudo ifconfig {} inet {} netmask {}", iface, l.address, kNetmask30));
    }
  }
  return out;
}

std::vector<std::string> teardown_commands(const HostSetup& host) {
  std::vector<std::string> out;
  for (auto it = host.direct.rbegin(); it != host.direct.rend(); ++it) {
    std::string iface = shell_quote(it->interface);
    out.push_back(host.linux ? fmt::format("sudo ip addr del {}/30 dev {}", it->address, iface)
                             : fmt::format("sudo ifconfig {} inet {} delete", iface, it->address));
  }
  for (auto it = host.links.rbegin(); it != host.links.rend(); ++it) {
    std::string iface = shell_quote(it->interface);
    out.push_back(fmt::format("sudo route delete {} -interface {}", it->peer_address, iface));
    out.push_back(fmt::format("sudo ifconfig {} inet {} delete", iface, it->address));
  }
  if (host.restore_bridge && touches_bridge(host)) out.emplace_back("sudo ifconfig bridge0 up");
  return out;
}

std::string render_commands(const std::vector<std::string>& commands) {
  std::string out;
  for (const auto& c : commands)
    out += c + "\n";
  return out;
}

std::string render_setup(const std::vector<HostSetup>& hosts) {
  return render_blocks(hosts, "Setup", setup_commands);
}

std::string render_teardown(const std::vector<HostSetup>& hosts) {
  return render_blocks(hosts, "Teardown", teardown_commands);
}

std::string render_wired_limits(const PlanRanks& plan, const std::string& host) {
  std::string out;
  for (const PlanRank& r : plan.ranks) {
    if (r.wired_limit_mb <= 0 || (!host.empty() && r.host != host)) continue;
    if (host.empty())
      out += fmt::format("# {}: the plan holds more than macOS wires for the GPU by default\n",
                         r.host);
    out += fmt::format("sudo sysctl iogpu.wired_limit_mb={}\n", r.wired_limit_mb);
  }
  return out;
}

}  // namespace meshplan
