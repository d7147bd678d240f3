// `setup --apply` and `teardown --apply`: the shared options, running lib/configure's apply over
// SSH, writing the undo script and printing the per-host report.
#pragma once

#include <string>
#include <vector>

#include "app/commands.hpp"
#include "app/ssh_args.hpp"
#include "deploy/configure/apply_runner.hpp"
#include "lib/cluster/cluster.hpp"

namespace meshplan {

struct ApplyArgs {
  bool apply = false;
  bool dry_run = false;
  bool keep_partial = false;
  std::string undo;  // setup: where the undo script goes ("" = beside the cluster file);
                     // teardown: the undo script to run instead

  int jobs = 16;
  SshArgs ssh;
  bool wanted() const { return apply || dry_run; }
};

void add_apply_options(CLI::App* sub, ApplyArgs& a, ApplyMode mode);

// The undo script's default path: the cluster file's, with ".undo.sh" for its extension.
std::string default_undo_path(const std::string& cluster_path);

// Applies (or, with --dry-run, shows) the hosts' changes and prints what happened per host.
// Returns 0 when every host is as planned; throws kHostsFailed with the report otherwise.
int run_apply_command(AppContext& ctx, const Cluster& cluster, const std::string& cluster_path,
                      const std::vector<HostSetup>& hosts, const ApplyArgs& a, ApplyMode mode);

// teardown --apply --undo FILE: runs the undo script's per-host blocks over meshplan's own SSH
// sessions (each host is found in the cluster by the block's `# HOST` line) and prints what ran.
// Throws kBadInput for a malformed file, kHostsFailed / kHostsUnsettled as run_apply_command.
int run_undo_file_command(AppContext& ctx, const Cluster& cluster, const std::string& cluster_path,
                          const ApplyArgs& a);

}  // namespace meshplan
