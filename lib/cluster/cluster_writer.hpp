// Writes a cluster as meshplan.cluster/1 JSON with a stable key order.
#pragma once

#include <string>

#include "lib/cluster/cluster.hpp"
#include "lib/core/json_util.hpp"

namespace meshplan {

ojson cluster_to_json(const Cluster& cluster);
// Two-space indented JSON with a trailing newline.
std::string write_cluster_json(const Cluster& cluster);

}  // namespace meshplan
