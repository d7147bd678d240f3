// Reads a meshplan.cluster/1 document (JSON or YAML) into a Cluster. Checks every key, type,
// unit and catalog reference, naming the position of the first bad value. Generator entries are
// kept as GeneratorSpec for topologies/ to expand.
#pragma once

#include <cstddef>

#include "lib/cluster/catalog.hpp"
#include "lib/cluster/cluster.hpp"
#include "lib/cluster/host_reader.hpp"
#include "lib/core/document.hpp"

namespace meshplan {

// A cluster file holds at most this many hosts (reading and checking are n log n in them; the
// benchmark reads and checks 200,000).
inline constexpr size_t kMaxClusterHosts = 250000;

Cluster read_cluster(const DocNode& root, const Catalog& catalog);

}  // namespace meshplan
