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
#include "lib/probes/thunderbolt_parser.hpp"

namespace meshplan {

struct CableMatch {
  std::vector<Cable> cables;  // by host order, then port
  std::vector<Finding> findings;
};

// `buses[i]` are the buses of `hosts[i]`.
CableMatch match_cables(const std::vector<Host>& hosts,
                        const std::vector<std::vector<TbBus>>& buses, const Catalog& catalog);

// The link-layer addresses one Linux interface saw across its wire (IPv6 neighbour discovery).
struct NetSighting {
  std::string interface;
  std::vector<std::string> macs;
};

// Direct network cables between Linux hosts: an interface that sees exactly one other probed
// host's interface, and nothing else, is cabled to it (a switch shows more than one neighbour,
// or one that no probed host owns). The far end must not see anyone else; when it saw nothing
// (no probe output), the cable is kept and named in a "one-sided-cable" finding. The kind comes
// from the slower end's speed (1 to 400 GbE); `rdma` when both ends have an RDMA device.
// `sightings[i]` belong to `hosts[i]`.
CableMatch match_network_cables(const std::vector<Host>& hosts,
                                const std::vector<std::vector<NetSighting>>& sightings,
                                const Catalog& catalog);

}  // namespace meshplan
