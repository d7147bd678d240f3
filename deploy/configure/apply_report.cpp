#include "deploy/configure/apply_report.hpp"

#include <fmt/format.h>

namespace meshplan {
namespace {

std::string who(const HostApply& h) {
  std::string spec = h.target.spec();
  return spec == h.host ? h.host : fmt::format("{} ({})", h.host, spec);
}

std::string what_list(const std::vector<ApplyStep>& steps, size_t from, size_t to) {
  std::string out;
  for (size_t i = from; i < to; ++i)
    out += (out.empty() ? "" : ", ") + steps[i].what;
  return out;
}

// The undo commands, one per line, indented under the host's report line.
std::string indented(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines)
    out += fmt::format("\n    {}", l);
  return out;
}

std::string host_line(const ApplyReport& r, const HostApply& h) {
  if (!h.ok() && h.done == 0 && h.steps.empty())
    return fmt::format("{}: {}: {}", who(h), host_failure_name(h.failure), h.message);
  if (h.ok() && h.steps.empty()) return fmt::format("{}: already as planned", who(h));
  std::string failure =
      h.ok() ? "" : fmt::format("{}: {}", host_failure_name(h.failure), h.message);
  std::string settled = h.settled.empty() ? "" : fmt::format(" ({})", h.settled);
  switch (r.outcome(h)) {
    case HostOutcome::kApplied:
      return fmt::format("{}: changed: {}", who(h), what_list(h.steps, 0, h.done));
    case HostOutcome::kUnchanged:
      return fmt::format("{}: {}{}; nothing was changed there", who(h), failure, settled);
    case HostOutcome::kPutBack:
      if (h.ok())
        return fmt::format("{}: changed, then put back because another host failed: {}", who(h),
                           what_list(h.steps, 0, h.done));
      return fmt::format("{}: {}{}; put back: {}", who(h), failure, settled,
                         what_list(h.steps, 0, h.done));
    case HostOutcome::kStillChanged: {
      std::string why =
          h.undo_failure.empty() ? "kept (--keep-partial)" : "undo failed: " + h.undo_failure;
      return fmt::format("{}: {}{}{}STILL CHANGED: {} ({}); to put it back, run there:{}", who(h),
                         failure, settled, h.ok() ? "" : "; ",
                         what_list(h.steps, 0, h.done - h.undone), why, indented(h.pending_undo()));
    }
    case HostOutcome::kUnknown: {
      size_t maybe = h.done - h.undone + (h.step_unknown ? 1 : 0);
      return fmt::format(
          "{}: UNKNOWN: {}{}; the host did not answer again, so whether these are in effect is "
          "not known: {}; to put them back, run there (each line fails harmlessly when its change "
          "is not there):{}",
          who(h), failure, h.undo_failure.empty() ? "" : "; then undo: " + h.undo_failure,
          what_list(h.steps, 0, maybe), indented(h.pending_undo()));
    }
  }
  return "";
}

}  // namespace

std::string render_dry_run_commands(const ApplyReport& report) {
  std::string out;
  for (const auto& h : report.hosts) {
    if (!h.ok() || h.steps.empty()) continue;
    out += fmt::format("# {}\n", who(h));
    for (const auto& s : h.steps)
      out += s.command + "\n";
  }
  return out;
}

std::string render_apply_hosts(const ApplyReport& report, bool dry_run) {
  std::string lines;
  for (const auto& h : report.hosts)
    if (!(dry_run && h.ok() && !h.steps.empty())) lines += host_line(report, h) + "\n";
  return lines;
}

std::string apply_outcome_summary(const ApplyReport& report) {
  std::string out;
  for (HostOutcome o : {HostOutcome::kUnchanged, HostOutcome::kPutBack, HostOutcome::kStillChanged,
                        HostOutcome::kUnknown}) {
    std::string names;
    for (const auto& h : report.hosts)
      if (report.outcome(h) == o) names += (names.empty() ? "" : ", ") + h.host;
    out += fmt::format("{}{}: {}", out.empty() ? "" : "; ", host_outcome_name(o),
                       names.empty() ? "none" : names);
  }
  return out;
}

Error apply_failure(const ApplyReport& report, const ApplyRun& run) {
  const char* verb = run.mode == ApplyMode::kSetup ? "setup" : "teardown";
  const std::string lines = render_apply_hosts(report, run.dry_run);
  if (report.read_failed)
    return Error(ErrorKind::kHostsFailed,
                 fmt::format("{} --{}: nothing was changed on any host:\n{}", verb,
                             run.dry_run ? "dry-run" : "apply", lines.substr(0, lines.size() - 1)));
  std::string head =
      fmt::format("{} --apply failed{}:\n", verb,
                  run.keep_partial ? " (--keep-partial: the other hosts keep their changes)"
                                   : "; the hosts changed are put back");
  std::string tail = fmt::format("\nhosts: {}", apply_outcome_summary(report));
  if (!report.unsettled(run.keep_partial))
    return Error(ErrorKind::kHostsFailed, head + lines + tail.substr(1));
  std::string finish =
      run.mode == ApplyMode::kSetup
          ? fmt::format(
                "\nto finish, once the hosts answer: sh {0}  (or: meshplan teardown -c {1} "
                "--apply --undo {0}); the lines above do the same host by host",
                run.undo_path, run.cluster_path)
          : "\nto finish, once the hosts answer: run the lines above on their hosts, or "
            "`meshplan teardown --apply` again";
  return Error(ErrorKind::kHostsUnsettled, head + lines + tail.substr(1) + finish);
}

}  // namespace meshplan
