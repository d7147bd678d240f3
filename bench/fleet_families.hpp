// Seeded fleets of 64 to thousands of hosts for the fleet benchmark (issue 51): the sizes where
// planning time, not plan quality, is the question. Four families:
//   minis         Mac minis (M4 Pro 20-core GPU, 64 GiB) on one 10 GbE switch;
//   h100-nodes    Linux nodes of 8 H100 SXM on one InfiniBand (NDR) switch, with a 10 GbE
//                 management switch;
//   macs-islands  three Mac kinds (Mac mini M4 Pro 64 GiB, Mac Studio M3 Ultra 512 GiB, Mac
//                 Studio M4 Max 128 GiB) in Thunderbolt 5 islands of 2-4 hosts (full mesh, RDMA),
//                 all on a 10 GbE switch;
//   mixed-6       those three Macs in islands and GPU nodes of 1 H200, 4 A100 80GB and 8 H100
//                 SXM on an InfiniBand switch, all on a 10 GbE switch.
// Every kind of a family is present, in seeded random proportions. Hosts are listed by kind and
// named after it, numbered from 1 within it ("mini-0001", "ultra-0001", "h100-0001"); every host
// has a management interface on 10.0.0.0/16, GPU nodes an InfiniBand port on 10.9.0.0/16. The
// cluster is what loading its file would give (machine ports assigned to the Thunderbolt cables).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "lib/cluster/catalog.hpp"
#include "lib/cluster/cluster.hpp"

namespace meshplan {

// The most hosts a fleet takes: every host's addresses fit a /16.
inline constexpr int kMaxFleetHosts = 65000;

const std::vector<std::string>& fleet_family_names();

// Throws an input error naming the families for an unknown one, and for fewer hosts than the
// family has kinds.
Cluster generate_fleet(const std::string& family, int hosts, uint64_t seed, const Catalog& catalog);

}  // namespace meshplan
