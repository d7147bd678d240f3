#include "lib/emit/setup_commands.hpp"

#include <fmt/format.h>

namespace meshplan {
namespace {

std::string render_blocks(const std::vector<HostSetup>& hosts, const char* title,
                          std::vector<std::string> (*commands)(const HostSetup&)) {
  std::string out;
  for (const auto& h : hosts) {
    std::string heading = fmt::format("{} for {}", title, h.ssh.empty() ? h.host : h.ssh);
    out += heading + "\n" + std::string(heading.size(), '=') + "\n";
    out += render_commands(commands(h));
    out += "\n";
  }
  return out;
}

}  // namespace

std::vector<std::string> setup_commands(const HostSetup& host) {
  std::vector<std::string> out{"sudo ifconfig bridge0 down"};
  for (const auto& l : host.links) {
    out.push_back(
        fmt::format("sudo ifconfig {} inet {} netmask {}", l.interface, l.address, kNetmask30));
    out.push_back(fmt::format("sudo route change {} -interface {}", l.peer_address, l.interface));
  }
  return out;
}

std::vector<std::string> teardown_commands(const HostSetup& host) {
  std::vector<std::string> out;
  for (auto it = host.links.rbegin(); it != host.links.rend(); ++it) {
    out.push_back(
        fmt::format("sudo route delete {} -interface {}", it->peer_address, it->interface));
    out.push_back(fmt::format("sudo ifconfig {} inet {} delete", it->interface, it->address));
  }
  if (host.restore_bridge) out.emplace_back("sudo ifconfig bridge0 up");
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
