// LAUNCH.md of a replica plan: the replicas with their hosts, engine, HTTP server and weight, then
// an ordered checklist: the network, per replica what to copy where and what to start on which
// host, then nginx, then how to check that it answers.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace meshplan {

struct EmitInput;
struct ReplicaLaunch;

// `files`: what `emit all` writes (name -> content), to mention only those.
std::string render_replica_guide(const EmitInput& in, const std::vector<ReplicaLaunch>& replicas,
                                 const std::map<std::string, std::string>& files);

}  // namespace meshplan
