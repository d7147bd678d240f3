// `check --live`: the cables of the chosen backend (those of the plan's hosts when a plan is
// given) tried from both ends over SSH, then the TCP connections its launch opens (mlx.launch's
// ports, from lib/emit; for an engine of Linux hosts, the engine's: engine_preflight.hpp), and the
// report a user reads. It sits above lib/configure, which runs the scripts, and lib/emit, which
// knows the launch's connections.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "deploy/configure/live_check.hpp"
#include "lib/cluster/cluster.hpp"
#include "lib/plan/plan_file_reader.hpp"
#include "lib/remote/remote_executor.hpp"
#include "topologies/backend_rules.hpp"
#include "topologies/check_report.hpp"

namespace meshplan {

struct PreflightOptions {
  std::string cluster_file;  // named in fixes ("CLUSTER") and errors
  int starting_port = 32323;
  int pings = 3;
  int jobs = 16;
  bool measure = false;    // --measure: the cluster with the cables' measured figures
  int iperf_seconds = 0;   // with measure: seconds of iperf3 per cable (0: latency only)
  int connect_wait_s = 5;  // each TCP connection waits at most this long
  std::string date;        // recorded with measured figures
};

struct PreflightReport {
  std::string text;                 // the "Live check" block and every problem with its fix
  std::vector<std::string> notes;   // for stderr: what was not tried, hosts without a tool
  size_t answered = 0;              // cable ends whose pings came back
  std::optional<Cluster> measured;  // with --measure, when a cable end answered
  bool ok = true;                   // no problem found
  std::string unreachable;          // "2 of 4 hosts could not be checked: ..." ("" when none)
};

// Host name -> how to reach it over SSH (the app's options).
using TargetOf = std::function<HostTarget(const Host&)>;

// Runs the live check. A host that could not be checked is named in `unreachable`, which the
// caller reports (exit 3) after printing the rest.
PreflightReport run_preflight(const Cluster& cluster, const TopologyContext& topo,
                              const CheckReport& report, const std::optional<PlanRanks>& plan,
                              const TargetOf& target_of, RemoteExecutor& executor,
                              const PreflightOptions& options);

}  // namespace meshplan
