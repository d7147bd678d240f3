// The undo script `setup --apply` writes before its first change: per host, a `# HOST` line and
// `ssh OPTIONS DEST /bin/sh -s <<'MESHPLAN_UNDO'` with the undo commands, last first. It carries
// the SSH options of the apply that wrote it (user, port, identity, known_hosts, ssh config,
// host-key policy), so that `sh FILE` reaches the hosts as the apply did. `teardown --apply
// --undo FILE` reads the same blocks back and runs them over meshplan's own sessions.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "deploy/configure/apply_runner.hpp"
#include "lib/remote/libssh_executor.hpp"

namespace meshplan {

// `ssh` with `options` (user and port come from each host's target), all values shell-quoted.
std::string ssh_command(const SshOptions& options);

// The undo script for the hosts' planned steps: one block per host that has steps, running their
// undo commands last first (each may fail harmlessly when its step did not run).
std::string undo_script(const std::vector<HostApply>& hosts, const SshOptions& options,
                        const std::string& heading);

struct UndoBlock {
  std::string host;                // from the block's `# HOST` line
  std::vector<std::string> lines;  // the commands, in the file's order
  size_t line = 0;                 // where the block's ssh line is (1-based)
};

// Throws an input error naming `where` and the line when the text is not an undo script.
std::vector<UndoBlock> parse_undo_script(std::string_view text, const std::string& where);

struct UndoRun {
  std::string host;
  HostFailureKind failure = HostFailureKind::kNone;
  std::string message;
  bool unknown = false;              // the lines were sent but the answer did not come
  size_t ran = 0;                    // lines that exited 0
  std::vector<std::string> refused;  // lines that exited non-zero (already undone, never made)
};

// Runs each block on its target (targets[i] for blocks[i]), every host at once; a host that cannot
// be reached or whose answer does not come is tried again up to `attempts` times, `pause_ms`
// apart (the lines may run twice harmlessly).
std::vector<UndoRun> run_undo_blocks(const std::vector<UndoBlock>& blocks,
                                     const std::vector<HostTarget>& targets,
                                     RemoteExecutor& executor, int jobs, int attempts,
                                     int pause_ms);

}  // namespace meshplan
