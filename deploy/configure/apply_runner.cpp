#include "deploy/configure/apply_runner.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <charconv>
#include <sstream>
#include <thread>

#include "lib/core/parallel.hpp"
#include "lib/core/units.hpp"
#include "lib/probes/probe_set.hpp"

namespace meshplan {
namespace {

constexpr const char* kShell = "/bin/sh -s";

enum class StepStatus { kOk, kFailed, kUnknown };

struct StepRun {
  StepStatus status = StepStatus::kOk;
  HostFailureKind kind = HostFailureKind::kNone;
  bool reached = true;  // the host took the command (false: refused before it was sent)
  std::string why;
};

// "@@pid N" lines of a step's output.
std::vector<long> pids_in(const std::string& out) {
  std::vector<long> pids;
  std::istringstream lines(out);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.rfind("@@pid ", 0) != 0) continue;
    long pid = 0;
    std::string_view v = std::string_view(line).substr(6);
    auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), pid);
    if (ec == std::errc() && pid > 1) pids.push_back(pid);
  }
  return pids;
}

// One command on one host. It runs in the background with its PID printed first, so that a
// command still running when the session is cut can be stopped before the host is read back.
StepRun run_step(RemoteExecutor& ex, HostApply& h, const std::string& command) {
  ExecResult e = ex.run(h.target, kShell,
                        fmt::format("{} &\np=$!\necho \"@@pid $p\"\nwait \"$p\"\n", command));
  StepRun r;
  if (!e.ok()) {
    r.kind = e.failure;
    r.reached = e.command_sent;
    r.status = e.command_sent ? StepStatus::kUnknown : StepStatus::kFailed;
    r.why = e.message;
    if (e.command_sent) {
      std::vector<long> pids = pids_in(e.out);
      h.running.insert(h.running.end(), pids.begin(), pids.end());
    }
    return r;
  }
  if (e.exit_status == 0) return r;
  r.status = StepStatus::kFailed;
  r.kind =
      e.exit_status == 127 ? HostFailureKind::kCommandMissing : HostFailureKind::kCommandFailed;
  std::string why = trim(e.err);
  r.why = fmt::format("`{}` exited with {}{}", command, e.exit_status,
                      why.empty() ? "" : ": " + why.substr(0, why.find('\n')));
  return r;
}

HostSteps plan_steps(const HostSetup& setup, const HostState& state, ApplyMode mode) {
  return mode == ApplyMode::kSetup ? setup_steps(setup, state) : teardown_steps(setup, state);
}

// Reads the host; "" when it answered, else why not.
std::string read_host(HostApply& h, RemoteExecutor& ex, const std::string& before, HostState& state,
                      ExecResult& e) {
  e = ex.run(h.target, kShell, before + host_state_script());
  if (!e.ok()) return e.message;
  try {
    state = parse_host_state(e.out);
  } catch (const ProbeParseError& x) {
    std::string why = trim(e.err);
    return fmt::format("reading its interfaces: {}{}", x.what(),
                       why.empty() ? "" : " (stderr: " + why.substr(0, why.find('\n')) + ")");
  }
  return "";
}

void read_state(HostApply& h, const HostSetup& setup, RemoteExecutor& ex, ApplyMode mode) {
  HostState state;
  ExecResult e;
  std::string why = read_host(h, ex, "", state, e);
  if (!why.empty()) {
    h.failure = !e.ok()                ? e.failure
                : e.exit_status == 127 ? HostFailureKind::kCommandMissing
                                       : HostFailureKind::kOutputNotUnderstood;
    h.message = why;
    return;
  }
  HostSteps s = plan_steps(setup, state, mode);
  if (!s.refusals.empty()) {
    h.failure = HostFailureKind::kCommandFailed;
    h.message = fmt::format("{}", fmt::join(s.refusals, "; "));
    return;
  }
  h.steps = std::move(s.steps);
  h.privileged = state.privileged();
  if (!h.steps.empty() && !state.root && !state.sudo) {
    h.failure = HostFailureKind::kAuthRefused;
    h.sudoers_line = state.sudoers_line();
    h.message = fmt::format(
        "sudo wants a password for {}; nothing was changed there. Add this line with `sudo "
        "visudo` (or run as root): {}",
        state.user, h.sudoers_line);
  }
}

// Undoes h's done steps, last first; stops at the first undo that fails or whose outcome is
// unknown.
void roll_back(HostApply& h, RemoteExecutor& ex) {
  h.undo_failure.clear();
  h.undo_unreached = false;
  while (h.undone < h.done) {
    const ApplyStep& s = h.steps[h.done - 1 - h.undone];
    StepRun r = run_step(ex, h, s.undo);
    if (r.status == StepStatus::kUnknown) h.undo_unknown = true;
    if (r.status != StepStatus::kOk) {
      h.undo_failure = r.why;
      h.undo_unreached = !r.reached;
      return;
    }
    ++h.undone;
  }
}

// Stops the step commands that may still run (by PID, TERM so that sudo passes it on), and waits
// up to 2 s for them to end, before the host's state is read.
std::string stop_running(const HostApply& h) {
  std::string s;
  for (long pid : h.running)
    s += fmt::format(
        "{0}kill {1} 2>/dev/null && {{ i=0; while {0}kill -0 {1} 2>/dev/null && [ $i -lt 20 ]; "
        "do sleep 0.1; i=$((i+1)); done; }}\n",
        h.privileged, pid);
  return s;
}

// Reads the host again and settles the unknown step or undo: a step is in effect when planning
// from the state read now no longer asks for it. False when the host could not be read.
bool settle(HostApply& h, const HostSetup& setup, RemoteExecutor& ex, ApplyMode mode) {
  HostState state;
  ExecResult e;
  if (!read_host(h, ex, stop_running(h), state, e).empty()) return false;
  h.running.clear();
  HostSteps now = plan_steps(setup, state, mode);
  if (!now.refusals.empty()) return false;
  auto in_effect = [&](const ApplyStep& step) {
    return std::none_of(now.steps.begin(), now.steps.end(),
                        [&](const ApplyStep& s) { return s.what == step.what; });
  };
  if (h.step_unknown) {
    bool ran = in_effect(h.steps[h.done]);
    h.settled = fmt::format("read back: `{}` {}", h.steps[h.done].what,
                            ran ? "had taken effect" : "had not taken effect");
    if (ran) ++h.done;
    h.step_unknown = false;
  }
  if (h.undo_unknown) {
    const ApplyStep& s = h.steps[h.done - 1 - h.undone];
    bool undone = !in_effect(s);
    h.settled += fmt::format("{}read back: the undo of `{}` {}", h.settled.empty() ? "" : "; ",
                             s.what, undone ? "had taken effect" : "had not taken effect");
    if (undone) ++h.undone;
    h.undo_unknown = false;
  }
  return true;
}

}  // namespace

const char* host_outcome_name(HostOutcome outcome) {
  switch (outcome) {
    case HostOutcome::kUnchanged:
      return "known clean";
    case HostOutcome::kApplied:
      return "changed";
    case HostOutcome::kPutBack:
      return "put back";
    case HostOutcome::kStillChanged:
      return "still changed";
    case HostOutcome::kUnknown:
      return "unknown";
  }
  return "?";
}

std::vector<std::string> HostApply::pending_undo() const {
  size_t n = done - undone + (step_unknown ? 1 : 0);
  std::vector<std::string> out;
  for (size_t i = n; i-- > 0;)
    out.push_back(steps[i].undo);
  return out;
}

bool ApplyReport::ok() const {
  if (read_failed) return false;
  for (const auto& h : hosts)
    if (!h.ok()) return false;
  return true;
}

bool ApplyReport::changed() const {
  for (const auto& h : hosts)
    if (h.done > h.undone || h.unknown()) return true;
  return false;
}

HostOutcome ApplyReport::outcome(const HostApply& h) const {
  if (h.unknown()) return HostOutcome::kUnknown;
  if (h.done > h.undone) return ok() ? HostOutcome::kApplied : HostOutcome::kStillChanged;
  return h.done > 0 ? HostOutcome::kPutBack : HostOutcome::kUnchanged;
}

bool ApplyReport::unsettled(bool keep_partial) const {
  for (const auto& h : hosts) {
    HostOutcome o = outcome(h);
    if (o == HostOutcome::kUnknown) return true;
    if (o == HostOutcome::kStillChanged && (!h.ok() || !keep_partial)) return true;
  }
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
      StepRun r = run_step(executor, h, h.steps[h.done].command);
      if (r.status == StepStatus::kOk) continue;
      h.failure = r.kind;
      h.message = r.why;
      if (r.status == StepStatus::kUnknown)
        h.step_unknown = true;  // rolled back once its state is read again
      else
        roll_back(h, executor);
      return;
    }
  });
  const bool put_back_all = !report.ok() && !options.keep_partial;
  if (put_back_all) {
    parallel_for(hosts.size(), options.jobs, [&](size_t i) {
      if (report.hosts[i].ok()) roll_back(report.hosts[i], executor);
    });
  }
  // Hosts whose outcome is unknown, or whose undo could not reach them: read them again, a few
  // times, and once they answer, put back what the run still has to put back.
  parallel_for(hosts.size(), options.jobs, [&](size_t i) {
    HostApply& h = report.hosts[i];
    for (int attempt = 0; attempt < options.settle_attempts; ++attempt) {
      if (!h.unknown() && !h.undo_unreached) return;
      if (attempt > 0) std::this_thread::sleep_for(options.settle_pause);
      if (!settle(h, hosts[i], executor, options.mode)) continue;
      if (!h.ok() || put_back_all) roll_back(h, executor);
    }
  });
  return report;
}

}  // namespace meshplan
