// What every format of lib/emit writes from: the cluster, its topology (link graph, Thunderbolt
// fabric, /30 plan), the check report with the chosen backend, the plan's ranks when a plan was
// given, and the launch options.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "deploy/layout/launch_options.hpp"
#include "lib/cluster/cluster.hpp"
#include "lib/cluster/mlx_backend.hpp"
#include "lib/plan/plan_file_reader.hpp"
#include "topologies/backend_rules.hpp"
#include "topologies/check_report.hpp"

namespace meshplan {

struct EmitInput {
  const Cluster& cluster;
  const TopologyContext& topology;
  const CheckReport& report;  // report.chosen is the backend in use
  const std::optional<PlanRanks>& plan;
  std::string requested_backend =
      std::string(name(MlxBackend::kAuto));  // as given on the command line
  std::vector<std::string> envs;             // --env KEY=VALUE for every rank
  MlxEnvOptions env_options;
  LaunchOptions launch{};
};

}  // namespace meshplan
