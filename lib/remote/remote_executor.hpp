// Running one fixed command on a remote host. Implementations: LibsshExecutor (real SSH) and the
// fakes in tests. Every failure is classified so that a report can say, per host, what went wrong
// and what to do about it.
#pragma once

#include <string>

#include "lib/remote/host_list.hpp"

namespace meshplan {

enum class HostFailureKind {
  kNone,
  kUnreachable,          // no TCP connection (refused, no route, name not resolved)
  kTimedOut,             // connect, key exchange or a command took longer than the timeout
  kHostKeyUnknown,       // strict policy and the key is not in known_hosts
  kHostKeyChanged,       // known_hosts holds a different key: always refused
  kAuthRefused,          // no offered key was accepted
  kCommandMissing,       // a probe command does not exist on the host
  kCommandFailed,        // a probe command exited non-zero, or the session broke
  kOutputNotUnderstood,  // a probe printed something its parser does not accept
};

// "unreachable", "timed out", "host key unknown", ... as reports print them.
const char* host_failure_name(HostFailureKind kind);

struct ExecResult {
  HostFailureKind failure = HostFailureKind::kNone;
  std::string message;  // for failures: what happened and, where possible, the fix
  std::string out;      // standard output (also what was read before a timeout)
  std::string err;      // standard error
  int exit_status = -1;
  // The command reached the host (its exec request was accepted). A failure after that leaves
  // the command's effect unknown: it may have run, in part or whole; before, it certainly did not.
  bool command_sent = false;
  bool ok() const { return failure == HostFailureKind::kNone; }
};

class RemoteExecutor {
 public:
  virtual ~RemoteExecutor() = default;
  // Runs `command` (a constant of this program, never user text) on `target`, writing `input` to
  // its standard input and closing it. Safe to call from several threads at once, one call per
  // host; each call uses its own connection.
  virtual ExecResult run(const HostTarget& target, const std::string& command,
                         const std::string& input) = 0;
};

}  // namespace meshplan
