#include "app/apply_args.hpp"

#include <fmt/format.h>

#include "lib/core/error.hpp"
#include "lib/discovery/host_list.hpp"

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

std::string host_line(const HostApply& h, bool rolled_back_others) {
  if (!h.ok() && h.done == 0 && h.steps.empty())
    return fmt::format("{}: {}: {}", who(h), host_failure_name(h.failure), h.message);
  if (h.ok() && h.steps.empty()) return fmt::format("{}: already as planned", who(h));
  std::string s;
  if (h.ok() && h.undone == 0) {
    s = fmt::format("{}: changed: {}", who(h), what_list(h.steps, 0, h.done));
  } else if (h.ok()) {
    s = fmt::format("{}: changed, then put back{}: {}", who(h),
                    rolled_back_others ? " because another host failed" : "",
                    what_list(h.steps, h.done - h.undone, h.done));
  } else {
    s = fmt::format("{}: {}: {}", who(h), host_failure_name(h.failure), h.message);
    if (h.done > 0)
      s += fmt::format("; put back: {}", what_list(h.steps, h.done - h.undone, h.done));
    if (h.done == 0 && !h.steps.empty()) s += "; nothing was changed there";
  }
  if (rolled_back_others && h.undone < h.done)
    s += fmt::format(
        "; STILL CHANGED: {} ({}; the undo script puts them back)",
        what_list(h.steps, 0, h.done - h.undone),
        h.undo_failure.empty() ? "kept (--keep-partial)" : "undo failed: " + h.undo_failure);
  return s;
}

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
  if (mode == ApplyMode::kSetup) {
    options.before_changes = [&](const std::vector<HostApply>& planned) {
      write_output(ctx, undo_path,
                   undo_script(planned, a.ssh.ssh.config_file,
                               fmt::format("undoes `meshplan setup --apply -c {}`; run: sh {}",
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
  bool others_failed = !report.ok();
  std::string lines;
  for (const auto& h : report.hosts)
    if (!(a.dry_run && h.ok() && !h.steps.empty())) lines += host_line(h, others_failed) + "\n";
  if (report.ok()) {
    if (!a.dry_run) ctx.console.data(lines);
    bool any = false;
    for (const auto& h : report.hosts)
      any = any || !h.steps.empty();
    if (!any) ctx.console.note(fmt::format("no change: every host is as {} leaves it", verb));
    return 0;
  }
  std::string head =
      report.read_failed
          ? fmt::format("{} --{}: nothing was changed on any host:\n", verb,
                        a.dry_run ? "dry-run" : "apply")
          : fmt::format("{} --apply failed{}:\n", verb,
                        a.keep_partial ? " (--keep-partial: the other hosts keep their changes)"
                                       : "; the hosts changed are put back");
  throw Error(ErrorKind::kHostsFailed, head + lines.substr(0, lines.size() - 1));
}

}  // namespace meshplan
