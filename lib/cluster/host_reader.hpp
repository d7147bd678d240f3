// Reads one host of a meshplan.cluster/1 document (the `hosts[]` entries): chip, machine, memory,
// ports, interfaces, GPUs and their links, checked against the catalog. The cluster reader calls it
// for each host and reads the links between them.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "lib/cluster/catalog.hpp"
#include "lib/cluster/cluster.hpp"
#include "lib/core/document.hpp"

namespace meshplan {

// One `hosts[]` entry; warnings the file deserves but that do not stop it go to `warnings`.
Host read_host(const DocNode& n, const Catalog& catalog, std::vector<std::string>& warnings);

// An interface or RDMA device name: not empty, no leading '-', no control characters.
std::string read_device_name(const DocNode& n);

// A host name as the file format allows it: [A-Za-z0-9._-]+.
bool valid_host_name(std::string_view name);

// The Thunderbolt receptacles a machine model has, numbered "1".."N" with their interfaces.
std::vector<ThunderboltPort> default_ports(const MachineSpec& machine);

// The machine model of a host: its `machine`, else the chip's default machine, else nullptr.
const MachineSpec* host_machine(const Host& host, const Catalog& catalog);

}  // namespace meshplan
