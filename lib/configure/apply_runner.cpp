#include "lib/configure/apply_runner.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "lib/core/parallel.hpp"
#include "lib/core/shell_quote.hpp"
#include "lib/core/units.hpp"
#include "lib/discovery/probe_set.hpp"

namespace meshplan {
namespace {

constexpr const char* kShell = "/bin/sh -s";

// One command on one host; "" when it ran and exited 0, else what went wrong.
std::string run_one(RemoteExecutor& ex, const HostTarget& t, const std::string& command,
                    HostFailureKind& kind) {
  ExecResult e = ex.run(t, kShell, command + "\n");
  if (!e.ok()) {
    kind = e.failure;
    return e.message;
  }
  if (e.exit_status == 0) return "";
  kind = e.exit_status == 127 ? HostFailureKind::kCommandMissing : HostFailureKind::kCommandFailed;
  std::string why = trim(e.err);
  return fmt::format("`{}` exited with {}{}", command, e.exit_status,
                     why.empty() ? "" : ": " + why.substr(0, why.find('\n')));
}

void read_state(HostApply& h, const HostSetup& setup, RemoteExecutor& ex, ApplyMode mode) {
  ExecResult e = ex.run(h.target, kShell, host_state_script());
  if (!e.ok()) {
    h.failure = e.failure;
    h.message = e.message;
    return;
  }
  HostState state;
  try {
    state = parse_host_state(e.out);
  } catch (const ProbeParseError& x) {
    std::string why = trim(e.err);
    h.failure = e.exit_status == 127 ? HostFailureKind::kCommandMissing
                                     : HostFailureKind::kOutputNotUnderstood;
    h.message = fmt::format("reading its interfaces: {}{}", x.what(),
                            why.empty() ? "" : " (stderr: " + why.substr(0, why.find('\n')) + ")");
    return;
  }
  HostSteps s =
      mode == ApplyMode::kSetup ? setup_steps(setup, state) : teardown_steps(setup, state);
  if (!s.refusals.empty()) {
    h.failure = HostFailureKind::kCommandFailed;
    h.message = fmt::format("{}", fmt::join(s.refusals, "; "));
    return;
  }
  h.steps = std::move(s.steps);
  if (!h.steps.empty() && !state.root && !state.sudo) {
    h.failure = HostFailureKind::kAuthRefused;
    h.sudoers_line = state.sudoers_line();
    h.message = fmt::format(
        "sudo wants a password for {}; nothing was changed there. Add this line with `sudo "
        "visudo` (or run as root): {}",
        state.user, h.sudoers_line);
  }
}

// Undoes h's done steps, last first; stops at the first undo that fails.
void roll_back(HostApply& h, RemoteExecutor& ex) {
  while (h.undone < h.done) {
    const ApplyStep& s = h.steps[h.done - 1 - h.undone];
    HostFailureKind kind{};
    std::string why = run_one(ex, h.target, s.undo, kind);
    if (!why.empty()) {
      h.undo_failure = why;
      return;
    }
    ++h.undone;
  }
}

}  // namespace

bool ApplyReport::ok() const {
  if (read_failed) return false;
  for (const auto& h : hosts)
    if (!h.ok()) return false;
  return true;
}

bool ApplyReport::changed() const {
  for (const auto& h : hosts)
    if (h.done > h.undone) return true;
  return false;
}

ApplyReport run_apply(const std::vector<HostSetup>& hosts, const std::vector<HostTarget>& targets,
                      RemoteExecutor& executor, const ApplyOptions& options) {
  ApplyReport report;
  report.hosts.resize(hosts.size());
  for (size_t i = 0; i < hosts.size(); ++i) {
    report.hosts[i].host = hosts[i].host;
    report.hosts[i].target = targets[i];
  }
  parallel_for(hosts.size(), options.jobs,
               [&](size_t i) { read_state(report.hosts[i], hosts[i], executor, options.mode); });
  bool any_steps = false;
  for (const auto& h : report.hosts) {
    report.read_failed = report.read_failed || !h.ok();
    any_steps = any_steps || !h.steps.empty();
  }
  if (report.read_failed || options.dry_run || !any_steps) return report;
  if (options.before_changes) options.before_changes(report.hosts);

  parallel_for(hosts.size(), options.jobs, [&](size_t i) {
    HostApply& h = report.hosts[i];
    for (; h.done < h.steps.size(); ++h.done) {
      std::string why = run_one(executor, h.target, h.steps[h.done].command, h.failure);
      if (!why.empty()) {
        h.message = why;
        roll_back(h, executor);
        return;
      }
    }
  });
  bool failed = !report.ok();
  if (failed && !options.keep_partial) {
    parallel_for(hosts.size(), options.jobs, [&](size_t i) {
      if (report.hosts[i].ok()) roll_back(report.hosts[i], executor);
    });
  }
  return report;
}

std::string undo_script(const std::vector<HostApply>& hosts, const std::string& ssh_config,
                        const std::string& heading) {
  std::string out = "#!/bin/sh\n";
  if (!heading.empty()) out += "# " + heading + "\n";
  out +=
      "# Each command may fail harmlessly when its change was never made or is undone already.\n";
  for (const auto& h : hosts) {
    if (h.steps.empty()) continue;
    std::string ssh = "ssh";
    if (!ssh_config.empty()) ssh += " -F " + shell_quote(ssh_config);
    if (h.target.port > 0) ssh += fmt::format(" -p {}", h.target.port);
    std::string dest = h.target.user.empty() ? h.target.host : h.target.user + "@" + h.target.host;
    out +=
        fmt::format("\n# {}\n{} {} /bin/sh -s <<'MESHPLAN_UNDO'\n", h.host, ssh, shell_quote(dest));
    for (auto it = h.steps.rbegin(); it != h.steps.rend(); ++it)
      out += it->undo + "\n";
    out += "MESHPLAN_UNDO\n";
  }
  return out;
}

}  // namespace meshplan
