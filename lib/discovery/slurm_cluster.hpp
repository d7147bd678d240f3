// `discover --source scontrol`: the cluster from Slurm's controller instead of SSH. Every node is
// described as `scontrol show node -o` prints it; nodes the controller will not run work on are
// refused, as SSH failures are (kHostsFailed, exit 3).
#pragma once

#include <string>
#include <vector>

#include "lib/cluster/catalog.hpp"
#include "lib/cluster/cluster.hpp"
#include "lib/probes/scontrol_parser.hpp"
#include "lib/remote/host_list.hpp"
#include "lib/remote/local_command.hpp"

namespace meshplan {

struct SlurmNodes {
  std::vector<SlurmNode> nodes;
  std::vector<std::string> warnings;  // scontrol's own "scontrol: ..." lines, for the user
};

// Runs `scontrol show node -o NODES` (the targets' hosts, quoted) through `command` and parses its
// records. Throws kHostsFailed when scontrol is missing or fails (with what it said), and the
// parser's input error for a record it does not accept.
SlurmNodes query_slurm_nodes(const std::vector<HostTarget>& targets, const LocalCommand& command);

// The cluster of the targets, each host from its node record and named as its target; findings
// for GPU types the catalog lacks. Throws kHostsFailed listing every target that is not a node of
// the cluster or that the controller reports DOWN, DRAIN or FAIL.
Cluster slurm_cluster(const std::vector<HostTarget>& targets, const std::vector<SlurmNode>& nodes,
                      const Catalog& catalog);

}  // namespace meshplan
