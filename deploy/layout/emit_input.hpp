// What every format of deploy/ writes from: the cluster, its topology (link graph, Thunderbolt
// fabric, /30 plan), the check report with the chosen backend, the plan's ranks when a plan was
// given, and the launch options.
#pragma once

#include <memory>
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

struct LaunchLayout;  // deploy/layout/launch_layout.hpp

// Where an input keeps its launch layout once built. Copies of an input share it: they differ only
// in options the layout does not read (the engine Slurm starts, exo's namespace).
struct LaunchLayoutSlot {
  std::shared_ptr<const LaunchLayout> layout;
};

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
  // Built on first use by layout() and kept, so that every writer of one launch reads one layout
  // and a format that never needs it never fails on it. A replica's input gets its replica's slot.
  std::shared_ptr<LaunchLayoutSlot> layout_slot = std::make_shared<LaunchLayoutSlot>();

  // The launch layout of the chosen backend (deploy/layout/launch_nodes.hpp): built once, a
  // failure listing the backend's problems when it is not valid.
  const LaunchLayout& layout() const&;
  // Not on a temporary input: the layout lives in its slot, which may die with it.
  const LaunchLayout& layout() const&& = delete;
};

}  // namespace meshplan
