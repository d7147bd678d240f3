// Runs `setup --apply` or `teardown --apply` over SSH: reads every host's state (in parallel),
// refuses before changing anything when a host cannot be read, wants a sudo password or would
// lose its SSH interface; hands the undo script to the caller before the first change; then runs
// each host's steps one command at a time. When a host fails, its own done steps are undone, and
// (unless keep_partial) so are every other host's.
//
// A step (or undo) whose command reached the host but whose answer did not come (timeout,
// session cut, host gone) has an unknown outcome: it is never counted as "not run". Such a host
// is read again (a few attempts) after the others are done; its state then settles the step,
// and the host is put back as planned. A host that stays out of reach is reported unknown, with
// the undo commands of everything that may still be in effect there.
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "deploy/configure/apply_steps.hpp"
#include "lib/remote/remote_executor.hpp"

namespace meshplan {

enum class ApplyMode { kSetup, kTeardown };

struct HostApply;

struct ApplyOptions {
  ApplyMode mode = ApplyMode::kSetup;
  bool dry_run = false;       // read the state and plan the steps; change nothing
  bool keep_partial = false;  // a failed host does not roll back the others
  int jobs = 16;
  // Reading back a host whose outcome is unknown: this many attempts, this far apart.
  int settle_attempts = 3;
  std::chrono::milliseconds settle_pause{1000};
  // Called once every host's steps are known, before the first change (to write the undo script);
  // not called when nothing is to change or on a dry run. It throws to stop the run.
  std::function<void(const std::vector<HostApply>&)> before_changes;
};

// Where a host ends up, as the summary counts it.
enum class HostOutcome {
  kUnchanged,     // known clean: nothing was changed there
  kApplied,       // changed as planned (the run succeeded)
  kPutBack,       // changed, then every change undone
  kStillChanged,  // changes remain after a failed run (kept, or their undo failed)
  kUnknown,       // a step's or an undo's outcome could not be read back
};

// "known clean", "changed", "put back", "still changed", "unknown".
const char* host_outcome_name(HostOutcome outcome);

struct HostApply {
  std::string host;
  HostTarget target;
  HostFailureKind failure = HostFailureKind::kNone;
  std::string message;       // why the host failed, with the fix where there is one
  std::string sudoers_line;  // when sudo wanted a password
  std::string privileged;    // "" as root, else "sudo -n " (to stop a step left running)
  std::vector<ApplyStep> steps;
  size_t done = 0;              // steps[0, done) ran
  size_t undone = 0;            // of those, how many were put back (last first)
  bool step_unknown = false;    // steps[done] was sent; whether it ran is not known
  bool undo_unknown = false;    // the undo of steps[done - undone - 1] was sent; outcome not known
  bool undo_unreached = false;  // the last undo could not reach the host (retried with the reads)
  std::string undo_failure;     // the undo command that failed, if one did
  std::string settled;          // what reading the host back found after an unknown outcome
  std::vector<long> running;    // PIDs of step commands that may still run (stopped on read-back)
  bool ok() const { return failure == HostFailureKind::kNone; }
  bool unknown() const { return step_unknown || undo_unknown; }
  // The undo commands of every step that may still be in effect, last first: what a user runs
  // on the host to finish a run that was cut off.
  std::vector<std::string> pending_undo() const;
};

struct ApplyReport {
  std::vector<HostApply> hosts;  // in the cluster's order
  bool read_failed = false;      // nothing was changed because a host could not be read or used
  bool ok() const;
  bool changed() const;  // some step ran and stayed
  HostOutcome outcome(const HostApply& h) const;
  // Some host is unknown, or still changed although it was to be put back (its undo failed):
  // the hosts are not where the run meant to leave them.
  bool unsettled(bool keep_partial) const;
};

ApplyReport run_apply(const std::vector<HostSetup>& hosts, const std::vector<HostTarget>& targets,
                      RemoteExecutor& executor, const ApplyOptions& options);

}  // namespace meshplan
