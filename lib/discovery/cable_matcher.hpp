// Cables from Thunderbolt facts: every bus has its own domain UUID, and a Mac found downstream
// of a bus (at any depth, behind docks and hubs) names the UUID of the bus it is plugged into.
// Matching the two gives a cable between two receptacles. Link speed above 40 Gb/s is
// Thunderbolt 5; RDMA is usable only on a TB5 link between two hosts with RDMA enabled.
// A cable seen from one side only is kept (as a cable and a "one-sided-cable" finding); a peer
// that belongs to no probed host becomes an "unknown-peer" finding.
#pragma once

#include <vector>

#include "lib/cluster/catalog.hpp"
#include "lib/cluster/cluster.hpp"
#include "lib/discovery/thunderbolt_parser.hpp"

namespace meshplan {

struct CableMatch {
  std::vector<Cable> cables;  // by host order, then port
  std::vector<Finding> findings;
};

// `buses[i]` are the buses of `hosts[i]`.
CableMatch match_cables(const std::vector<Host>& hosts,
                        const std::vector<std::vector<TbBus>>& buses, const Catalog& catalog);

}  // namespace meshplan
