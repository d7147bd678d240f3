#include "app/apply_args.hpp"

#include <fmt/format.h>

#include "deploy/configure/apply_report.hpp"
#include "deploy/configure/undo_file.hpp"
#include "lib/core/error.hpp"
#include "lib/remote/host_list.hpp"

namespace meshplan {
namespace {

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

  if (a.dry_run) ctx.console.data(render_dry_run_commands(report));
  if (report.ok()) {
    if (!a.dry_run) ctx.console.data(render_apply_hosts(report, a.dry_run));
    bool any = false;
    for (const auto& h : report.hosts)
      any = any || !h.steps.empty();
    if (!any) ctx.console.note(fmt::format("no change: every host is as {} leaves it", verb));
    return 0;
  }
  throw apply_failure(report, {mode, a.dry_run, a.keep_partial, undo_path, cluster_path});
}

}  // namespace meshplan
