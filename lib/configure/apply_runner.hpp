// Runs `setup --apply` or `teardown --apply` over SSH: reads every host's state (in parallel),
// refuses before changing anything when a host cannot be read, wants a sudo password or would
// lose its SSH interface; hands the undo script to the caller before the first change; then runs
// each host's steps one command at a time. When a host fails, its own done steps are undone, and
// (unless keep_partial) so are every other host's. The report says per host what was done and
// undone.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "lib/configure/apply_steps.hpp"
#include "lib/discovery/remote_executor.hpp"

namespace meshplan {

enum class ApplyMode { kSetup, kTeardown };

struct HostApply;

struct ApplyOptions {
  ApplyMode mode = ApplyMode::kSetup;
  bool dry_run = false;       // read the state and plan the steps; change nothing
  bool keep_partial = false;  // a failed host does not roll back the others
  int jobs = 16;
  // Called once every host's steps are known, before the first change (to write the undo script);
  // not called when nothing is to change or on a dry run. It throws to stop the run.
  std::function<void(const std::vector<HostApply>&)> before_changes;
};

struct HostApply {
  std::string host;
  HostTarget target;
  HostFailureKind failure = HostFailureKind::kNone;
  std::string message;       // why the host failed, with the fix where there is one
  std::string sudoers_line;  // when sudo wanted a password
  std::vector<ApplyStep> steps;
  size_t done = 0;           // steps[0, done) ran
  size_t undone = 0;         // of those, how many were put back (last first)
  std::string undo_failure;  // the undo command that failed, if one did
  bool ok() const { return failure == HostFailureKind::kNone; }
};

struct ApplyReport {
  std::vector<HostApply> hosts;  // in the cluster's order
  bool read_failed = false;      // nothing was changed because a host could not be read or used
  bool ok() const;
  bool changed() const;  // some step ran and stayed
};

ApplyReport run_apply(const std::vector<HostSetup>& hosts, const std::vector<HostTarget>& targets,
                      RemoteExecutor& executor, const ApplyOptions& options);

// The undo script for the hosts' planned steps: one `ssh TARGET /bin/sh -s` block per host that
// has steps, running their undo commands last first (each may fail harmlessly when its step did
// not run). `ssh_config` ("" for none) is passed as -F.
std::string undo_script(const std::vector<HostApply>& hosts, const std::string& ssh_config,
                        const std::string& heading);

}  // namespace meshplan
