// A real Slurm cluster on this machine for the tests: munged, slurmctld and one slurmd, all
// configured in a fresh temporary folder (slurm.conf, munge key, state, logs, sockets), with
// extra nodes on other loopback addresses that the one slurmd answers for. Root only; every wait
// is bounded and the daemons are stopped by the PIDs they wrote.
#pragma once

#include <string>
#include <vector>

namespace meshplan::testing {

// Runs `command` under sh with SLURM_CONF set (when `conf` is not empty), both streams captured.
struct ShellResult {
  int status = -1;
  std::string out;
};
ShellResult shell(const std::string& command, const std::string& conf = "");

class SlurmFarm {
 public:
  // Why the farm cannot run here ("" when it can): not root, or Slurm not installed.
  static std::string unavailable();
  // Writes the configuration with `extra_nodes` (name, GPUs of type h100) and starts the daemons;
  // throws with the daemons' logs when they do not come up within the bounds.
  explicit SlurmFarm(const std::vector<std::pair<std::string, int>>& extra_nodes);
  ~SlurmFarm();
  SlurmFarm(const SlurmFarm&) = delete;
  SlurmFarm& operator=(const SlurmFarm&) = delete;

  const std::string& dir() const { return dir_; }
  const std::string& conf() const { return conf_; }
  const std::string& node() const { return node_; }  // the node slurmd runs as (hostname -s)
  // Waits (bounded) until sinfo lists `count` nodes idle; false when they never are.
  bool wait_idle(size_t count, int seconds) const;
  std::string logs() const;

 private:
  std::string dir_, conf_, node_;
};

}  // namespace meshplan::testing
