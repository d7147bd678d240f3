// The hosts `discover` probes, from every place a user can name them: words on the command line,
// --hosts, an inventory file, the Slurm allocation (SLURM_JOB_NODELIST) and, with none of those,
// the hosts of a replay folder. Names must be unique; --user and --port fill in what a target
// leaves out, so that the cluster file's `ssh` records how each host was reached.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "lib/discovery/discovery.hpp"
#include "lib/remote/host_list.hpp"

namespace meshplan {

struct TargetSources {
  std::vector<std::string> words;  // positional host lists
  std::string hosts;               // --hosts
  std::string inventory_file;      // -i, with its text
  std::string inventory_text;
  std::optional<std::string> slurm_nodes;  // --slurm: SLURM_JOB_NODELIST ("" when unset)
  std::vector<std::string> replay_hosts;   // the hosts of --replay DIR
  std::string replay_dir;
  std::string default_user;  // --user
  int default_port = 0;      // --port
};

// The targets in the order given; an input error when there are none or a name repeats.
std::vector<HostTarget> collect_targets(const TargetSources& sources);

// "2 of 5 hosts could not be probed:" and a line per host with its failure.
std::string probe_failure_report(const std::vector<HostFailure>& failures, size_t total);

}  // namespace meshplan
