// Reads a meshplan.cluster/1 document (JSON or YAML) into a Cluster. Checks every key, type,
// unit and catalog reference, naming the position of the first bad value. Generator entries are
// kept as GeneratorSpec for topologies/ to expand.
#pragma once

#include <cstddef>

#include "lib/cluster/catalog.hpp"
#include "lib/cluster/cluster.hpp"
#include "lib/core/document.hpp"

namespace meshplan {

// A cluster file holds at most this many hosts (reading and checking are n log n in them; the
// benchmark reads and checks 200,000).
inline constexpr size_t kMaxClusterHosts = 250000;

Cluster read_cluster(const DocNode& root, const Catalog& catalog);

// A host name as the file format allows it: [A-Za-z0-9._-]+.
bool valid_host_name(std::string_view name);
bool valid_ipv4(std::string_view address);

// The Thunderbolt receptacles a machine model has, numbered "1".."N" with their interfaces.
std::vector<ThunderboltPort> default_ports(const MachineSpec& machine);

// The machine model of a host: its `machine`, else the chip's default machine, else nullptr.
const MachineSpec* host_machine(const Host& host, const Catalog& catalog);

}  // namespace meshplan
