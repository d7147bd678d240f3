// teardown --apply --undo FILE: the undo script of `setup --apply`, run over meshplan's own SSH
// sessions (the same options as the apply, no plain `ssh` needed).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "app/apply_args.hpp"
#include "deploy/configure/undo_file.hpp"
#include "lib/core/error.hpp"

namespace meshplan {

int run_undo_file_command(AppContext& ctx, const Cluster& cluster, const std::string& cluster_path,
                          const ApplyArgs& a) {
  if (!a.apply) throw input_error("--undo {}: runs only with --apply", a.undo);
  if (a.jobs < 1) throw input_error("--jobs {}: expected at least 1", a.jobs);
  std::vector<UndoBlock> blocks = parse_undo_script(read_input(ctx, a.undo), a.undo);
  std::vector<HostTarget> targets;
  for (const auto& b : blocks) {
    const Host* host = cluster.find_host(b.host);
    if (!host)
      throw input_error("{}:{}: host {} is not in {}", a.undo, b.line, b.host, cluster_path);
    targets.push_back(host_target(b.host, host->ssh_target(), cluster_path, a.ssh));
  }
  auto executor = make_ssh_executor(a.ssh);
  std::vector<UndoRun> runs =
      run_undo_blocks(blocks, targets, *executor, a.jobs, /*attempts=*/3, /*pause_ms=*/1000);
  std::string lines;
  bool failed = false, unknown = false;
  for (size_t i = 0; i < runs.size(); ++i) {
    const UndoRun& r = runs[i];
    std::string who =
        targets[i].spec() == r.host ? r.host : fmt::format("{} ({})", r.host, targets[i].spec());
    if (r.failure != HostFailureKind::kNone) {
      failed = true;
      unknown = unknown || r.unknown;
      lines += fmt::format("{}: {}{}: {}\n", who, r.unknown ? "UNKNOWN: " : "",
                           host_failure_name(r.failure), r.message);
      continue;
    }
    lines += fmt::format("{}: undo ran: {} of {} lines changed something", who, r.ran,
                         blocks[i].lines.size());
    if (!r.refused.empty())
      lines += fmt::format(" (found nothing to undo: {})", fmt::join(r.refused, "; "));
    lines += "\n";
  }
  if (!failed) {
    ctx.console.data(lines);
    return 0;
  }
  throw Error(unknown ? ErrorKind::kHostsUnsettled : ErrorKind::kHostsFailed,
              fmt::format("teardown --apply --undo {}: not every host was reached; run it again "
                          "once they answer (each line is harmless when run twice):\n{}",
                          a.undo, lines.substr(0, lines.size() - 1)));
}

}  // namespace meshplan
