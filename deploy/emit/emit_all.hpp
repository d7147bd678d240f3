// `emit all`: the complete launch of a plan, file name -> content. For one copy of the model,
// every format of the plan's engine (deploy/emit/emit_formats.*) and LAUNCH.md; for replicas, a
// folder of each replica's launch, nginx.conf and the checklist; for a routed plan, the routing
// table, the drawing and the inventory.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "deploy/emit/replica_launch.hpp"
#include "deploy/layout/launch_nodes.hpp"

namespace meshplan {

// `emit all`: every format that applies to the plan, file name -> content, plus LAUNCH.md. An
// input error without a plan.
std::map<std::string, std::string> emit_all(const EmitInput& input);

// `emit all` of a replica plan: replica-N/ with its engine's files, nginx.conf, setup.sh and
// teardown.sh with the host steps of every replica (deploy/emit/host_steps.hpp), inventory.yaml
// and cluster.dot over every replica's hosts, and LAUNCH.md, the ordered checklist.
std::map<std::string, std::string> emit_replica_launches(
    const EmitInput& in, const std::vector<ReplicaLaunch>& replicas);

}  // namespace meshplan
