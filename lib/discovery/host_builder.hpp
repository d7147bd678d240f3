// One host's probe outputs -> its Host record. The OS comes from `uname -s` (or, in a replay
// folder without it, from which probes exist). A failing essential probe (uname, sysctl,
// system_profiler, networksetup, /proc/meminfo) fails the host; any other failing probe only
// degrades its facts and is kept as a "probe-failed" finding.
#pragma once

#include <vector>

#include "lib/cluster/catalog.hpp"
#include "lib/cluster/cluster.hpp"
#include "lib/discovery/cable_matcher.hpp"
#include "lib/probes/probe_set.hpp"
#include "lib/probes/thunderbolt_parser.hpp"
#include "lib/remote/host_list.hpp"
#include "lib/remote/remote_executor.hpp"

namespace meshplan {

struct BuiltHost {
  Host host;
  std::vector<TbBus> buses;                          // the Thunderbolt buses, for cable matching
  std::vector<NetSighting> sightings;                // what Linux interfaces see, for cables
  std::vector<Finding> findings;                     // degraded facts
  HostFailureKind failure = HostFailureKind::kNone;  // an essential probe failed
  std::string failure_message;
};

BuiltHost build_host(const HostTarget& target, const ProbeSet& probes, const Catalog& catalog);

}  // namespace meshplan
