// Running a command on this machine through the shell and reading what it printed and how it
// ended: `discover --source scontrol` asks Slurm's controller this way. An interface, so that
// tests answer with recorded outputs instead of a real Slurm.
#pragma once

#include <string>

namespace meshplan {

struct LocalResult {
  bool started = true;  // false: the shell itself could not be started
  std::string out;      // standard output (a command that wants its stderr too says 2>&1)
  int exit_status = 0;  // 127: the shell did not find the command; -1: killed by a signal
};

class LocalCommand {
 public:
  virtual ~LocalCommand() = default;
  // Runs `command` with /bin/sh -c and waits for it.
  virtual LocalResult run(const std::string& command) const = 0;
};

// The real one: popen(3).
class PopenLocalCommand : public LocalCommand {
 public:
  LocalResult run(const std::string& command) const override;
};

}  // namespace meshplan
