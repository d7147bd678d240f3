// What `setup --apply` and `teardown --apply` (and --dry-run) report: per host, what changed, was
// put back, is still changed or is unknown, with the undo commands a user runs to finish; the
// summary of every host's outcome; and the error of a run that failed.
#pragma once

#include <string>

#include "deploy/configure/apply_runner.hpp"
#include "lib/core/error.hpp"

namespace meshplan {

// --dry-run: "# HOST" and, below, the commands --apply would run there, for every host with steps.
std::string render_dry_run_commands(const ApplyReport& report);

// One line per host (newline-terminated) with what happened there; a host's undo commands are
// indented under its line. A dry run leaves out the hosts render_dry_run_commands lists.
std::string render_apply_hosts(const ApplyReport& report, bool dry_run);

// "known clean: a, b; put back: c; still changed: none; unknown: d".
std::string apply_outcome_summary(const ApplyReport& report);

// What the failure message says about the run.
struct ApplyRun {
  ApplyMode mode = ApplyMode::kSetup;
  bool dry_run = false;
  bool keep_partial = false;
  std::string undo_path;     // setup's undo script
  std::string cluster_path;  // as the user gave it
};

// The error of a run whose report is not ok(): kHostsFailed when nothing was changed or every
// host ended where the run meant to leave it; kHostsUnsettled, with how to finish, otherwise.
Error apply_failure(const ApplyReport& report, const ApplyRun& run);

}  // namespace meshplan
