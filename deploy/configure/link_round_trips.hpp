// calibrate's links: a small request's round trip between processes over each cable whose ends
// have addresses (the /30 `meshplan setup` gives it, else the file's), what each call of an RPC
// engine costs beyond its data (llama.cpp's rpc-servers). One end runs the TCP test's listener on
// a free port, the other its connector, which times 64-byte requests echoed back one at a time.
#pragma once

#include <string>
#include <vector>

#include "deploy/configure/live_check.hpp"
#include "lib/cluster/cluster.hpp"
#include "lib/remote/remote_executor.hpp"

namespace meshplan {

struct LinkRoundTrip {
  size_t cable = 0;  // index in cluster.cables
  std::string name;  // "node-1:eth1 - node-2:eth1"
  double us = 0;     // the median
};

struct LinkRoundTripReport {
  std::vector<LinkRoundTrip> measured;  // in cable order
  std::vector<std::string> notes;       // cables not measured, and why
  std::vector<LiveHostFailure> failures;
};

// `links` as live_links gives them; each cable is timed once, from its first end listed to its
// peer, between hosts both in `targets`.
LinkRoundTripReport measure_link_round_trips(const std::vector<LiveLink>& links,
                                             const std::vector<HostTarget>& targets,
                                             RemoteExecutor& executor, int jobs, int round_trips);

// The cluster with each measured cable's round_trip_us and `measured: date`.
Cluster with_link_round_trips(const Cluster& cluster, const LinkRoundTripReport& report,
                              const std::string& date);

}  // namespace meshplan
