// `check --live`: a preflight over SSH of what a launch needs. Each host runs one generated
// script: its interfaces (ifconfig / ip -j addr), the macOS build, the MLX version when Python has
// it, the RDMA ports (macOS), and a few pings to each cable peer's planned address. The findings
// name the host, the cable and the fix; with `measure`, each reachable cable end gets the median
// round trip of its pings.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "deploy/configure/linux_launch_facts.hpp"
#include "lib/remote/remote_executor.hpp"
#include "topologies/subnet_plan.hpp"

namespace meshplan {

// One end of a cable with the addresses a launch will use.
struct LiveLink {
  size_t cable = 0;  // index in cluster.cables
  std::string host, interface, address;
  std::string peer_host, peer_interface, peer_address;
  std::string rdma_device;   // needed RDMA device on this end ("" when the cable carries none)
  std::string name() const;  // "node-1:eth1 - node-2:eth1"
};

// Every cable end: the /30 plan's addresses for cables setup configures, else the addresses the
// cluster file records on both ends; cables without addresses are left out.
std::vector<LiveLink> live_links(const Cluster& cluster, const SubnetPlan& subnets, bool rdma);

struct LiveFinding {
  std::string host;
  std::string cable;  // LiveLink::name(), "" for host-wide findings
  std::string problem;
  std::string fix;
};

struct LiveHostFailure {
  std::string host;
  HostFailureKind kind = HostFailureKind::kNone;
  std::string message;
};

struct LiveReport {
  std::vector<LiveFinding> findings;
  std::vector<LiveHostFailure> failures;
  std::vector<std::optional<double>> round_trip_us;   // per LiveLink: median, when replies came
  std::vector<std::optional<double>> bandwidth_gbps;  // per LiveLink, from it to its peer (iperf3)
  std::vector<std::string> notes;                     // e.g. where iperf3 is missing
  size_t hosts = 0;
  std::map<std::string, LinuxLaunchFacts> launch_facts;  // with launch_facts: per Linux host
};

struct LiveOptions {
  int pings = 3;  // per cable end
  int jobs = 16;
  int iperf_seconds = 0;  // > 0: measure each answered cable's bandwidth with iperf3, one at a time
  bool launch_facts = false;  // an engine's launch on Linux hosts: read linux_launch_script's facts
  bool ray = false;           // with launch_facts: Ray's version too
};

LiveReport run_live_check(const Cluster& cluster, const std::vector<LiveLink>& links,
                          const std::vector<HostTarget>& targets, RemoteExecutor& executor,
                          const LiveOptions& options);

// The cluster with each answered cable's measured figures: latency_us = half the mean of its
// ends' median round trips, bandwidth_gbps where iperf3 gave one, and `measured: date`.
Cluster with_measurements(const Cluster& cluster, const std::vector<LiveLink>& links,
                          const LiveReport& report, const std::string& date);

// The script a host runs (exposed for tests): `links` are that host's ends; `linux_part` runs on
// Linux hosts after their interfaces are read (linux_launch_script).
std::string live_script(const std::vector<const LiveLink*>& links, int pings,
                        const std::string& linux_part = "");
// iperf3 -J's client report -> received gigabits per second; nullopt when it holds none.
std::optional<double> iperf_received_gbps(const std::string& json_text);
// "64 bytes from ...: icmp_seq=1 ttl=64 time=0.045 ms" lines -> round trips in microseconds.
std::vector<double> ping_round_trips_us(const std::string& ping_output);

}  // namespace meshplan
