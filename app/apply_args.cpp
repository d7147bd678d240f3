#include "app/apply_args.hpp"

#include <fmt/format.h>

#include "deploy/configure/undo_file.hpp"
#include "lib/core/error.hpp"
#include "lib/remote/host_list.hpp"

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

// "known clean: a, b; put back: c; still changed: none; unknown: d".
std::string summary(const ApplyReport& r) {
  std::string out;
  for (HostOutcome o : {HostOutcome::kUnchanged, HostOutcome::kPutBack, HostOutcome::kStillChanged,
                        HostOutcome::kUnknown}) {
    std::string names;
    for (const auto& h : r.hosts)
      if (r.outcome(h) == o) names += (names.empty() ? "" : ", ") + h.host;
    out += fmt::format("{}{}: {}", out.empty() ? "" : "; ", host_outcome_name(o),
                       names.empty() ? "none" : names);
  }
  return out;
}

// Reading back a host whose outcome is unknown: this many attempts, a second apart, each waiting
// up to --timeout for the host.
constexpr int kSettleAttempts = 3;

}  // namespace

void add_apply_options(CLI::App* sub, ApplyArgs& a, ApplyMode mode) {
  sub->add_flag("--apply", a.apply,
                mode == ApplyMode::kSetup
                    ? "Run the commands over SSH, only what differs, undoing all if a host fails"
                    : "Run the teardown over SSH, only what is still configured");
  sub->add_flag("--dry-run", a.dry_run,
                "Read each host's state over SSH and print exactly what --apply would run");
  sub->add_flag("--keep-partial", a.keep_partial,
                "When a host fails, keep the other hosts' changes (default: put them back)");
  if (mode == ApplyMode::kSetup)
    sub->add_option("--undo", a.undo,
                    "Where --apply writes the undo script first (default: beside the cluster "
                    "file, CLUSTER.undo.sh)");
  else
    sub->add_option("--undo", a.undo,
                    "With --apply: run this undo script of `setup --apply` (its per-host blocks) "
                    "over meshplan's SSH sessions instead of the teardown");
  sub->add_option("--jobs", a.jobs, "Hosts configured at the same time")->capture_default_str();
  add_ssh_options(sub, a.ssh, "Seconds for connecting, and for each command");
}

std::string default_undo_path(const std::string& cluster_path) {
  auto slash = cluster_path.rfind('/');
  auto dot = cluster_path.rfind('.');
  std::string stem = dot != std::string::npos && (slash == std::string::npos || dot > slash + 1)
                         ? cluster_path.substr(0, dot)
                         : cluster_path;
  return stem + ".undo.sh";
}

int run_apply_command(AppContext& ctx, const Cluster& cluster, const std::string& cluster_path,
                      const std::vector<HostSetup>& hosts, const ApplyArgs& a, ApplyMode mode) {
  if (a.apply && a.dry_run) throw input_error("--apply and --dry-run cannot be combined");
  if (a.jobs < 1) throw input_error("--jobs {}: expected at least 1", a.jobs);
  const char* verb = mode == ApplyMode::kSetup ? "setup" : "teardown";
  std::string undo_path = a.undo.empty() ? default_undo_path(cluster_path) : a.undo;
  if (mode == ApplyMode::kSetup && a.apply && cluster_path == "-" && a.undo.empty())
    throw input_error(
        "setup --apply with the cluster on stdin: say where the undo script goes (--undo FILE)");
  std::vector<HostTarget> targets;
  for (const auto& h : hosts) {
    const Host* host = cluster.find_host(h.host);
    targets.push_back(host_target(h.host, host ? host->ssh_target() : h.host, cluster_path, a.ssh));
  }
  auto executor = make_ssh_executor(a.ssh);
  ApplyOptions options;
  options.mode = mode;
  options.dry_run = a.dry_run;
  options.keep_partial = a.keep_partial;
  options.jobs = a.jobs;
  options.settle_attempts = kSettleAttempts;
  if (mode == ApplyMode::kSetup) {
    SshOptions ssh = undo_ssh_options(a.ssh);
    options.before_changes = [&, ssh](const std::vector<HostApply>& planned) {
      write_output(ctx, undo_path,
                   undo_script(planned, ssh,
                               fmt::format("undoes `meshplan setup --apply -c {0}`; run: sh {1}  "
                                           "(or: meshplan teardown -c {0} --apply --undo {1})",
                                           cluster_path, undo_path)));
      ctx.console.note(fmt::format("wrote the undo script {}", undo_path));
    };
  }
  ApplyReport report = run_apply(hosts, targets, *executor, options);

  if (a.dry_run) {
    std::string out;
    for (const auto& h : report.hosts) {
      if (!h.ok() || h.steps.empty()) continue;
      out += fmt::format("# {}\n", who(h));
      for (const auto& s : h.steps)
        out += s.command + "\n";
    }
    ctx.console.data(out);
  }
  std::string lines;
  for (const auto& h : report.hosts)
    if (!(a.dry_run && h.ok() && !h.steps.empty())) lines += host_line(report, h) + "\n";
  if (report.ok()) {
    if (!a.dry_run) ctx.console.data(lines);
    bool any = false;
    for (const auto& h : report.hosts)
      any = any || !h.steps.empty();
    if (!any) ctx.console.note(fmt::format("no change: every host is as {} leaves it", verb));
    return 0;
  }
  if (report.read_failed)
    throw Error(ErrorKind::kHostsFailed,
                fmt::format("{} --{}: nothing was changed on any host:\n{}", verb,
                            a.dry_run ? "dry-run" : "apply", lines.substr(0, lines.size() - 1)));
  std::string head =
      fmt::format("{} --apply failed{}:\n", verb,
                  a.keep_partial ? " (--keep-partial: the other hosts keep their changes)"
                                 : "; the hosts changed are put back");
  std::string tail = fmt::format("\nhosts: {}", summary(report));
  if (!report.unsettled(a.keep_partial))
    throw Error(ErrorKind::kHostsFailed, head + lines + tail.substr(1));
  std::string finish =
      mode == ApplyMode::kSetup
          ? fmt::format(
                "\nto finish, once the hosts answer: sh {0}  (or: meshplan teardown -c {1} "
                "--apply --undo {0}); the lines above do the same host by host",
                undo_path, cluster_path)
          : "\nto finish, once the hosts answer: run the lines above on their hosts, or "
            "`meshplan teardown --apply` again";
  throw Error(ErrorKind::kHostsUnsettled, head + lines + tail.substr(1) + finish);
}

}  // namespace meshplan
