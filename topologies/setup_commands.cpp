#include "topologies/setup_commands.hpp"

#include <fmt/format.h>

#include "topologies/setup_steps.hpp"

namespace meshplan {
namespace {

// Printed commands run under sudo, which asks for a password where it needs one.
constexpr std::string_view kPrintedSudo = "sudo ";

std::string render_blocks(const std::vector<HostSetup>& hosts, const char* title,
                          std::vector<std::string> (*commands)(const HostSetup&)) {
  std::string out;
  for (const auto& h : hosts) {
    if (h.linux && h.links.empty() && h.direct.empty()) continue;  // nothing to configure
    out += render_host_block(title, h.ssh.empty() ? h.host : h.ssh, commands(h));
  }
  return out;
}

}  // namespace

std::string render_host_block(std::string_view title, std::string_view host,
                              const std::vector<std::string>& lines) {
  std::string heading = fmt::format("{} for {}", title, host);
  return heading + "\n" + std::string(heading.size(), '=') + "\n" + render_commands(lines) + "\n";
}

std::vector<std::string> setup_commands(const HostSetup& host) {
  std::vector<std::string> out;
  for (const SetupStep& s : setup_steps(host))
    out.push_back(s.command(kPrintedSudo));
  return out;
}

std::vector<std::string> teardown_commands(const HostSetup& host) {
  std::vector<std::string> out;
  for (const SetupStep& s : teardown_steps(host))
    out.push_back(s.undo(kPrintedSudo));
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

}  // namespace meshplan
