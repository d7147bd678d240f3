// What check, dot, emit and setup share: reading the cluster and an optional plan, turning a
// plan into the hosts and rank order to check, and echoing warnings on stderr.
#pragma once

#include <optional>
#include <string>

#include "app/commands.hpp"
#include "lib/plan/plan_file_reader.hpp"
#include "topologies/backend_rules.hpp"

namespace meshplan {

Cluster read_cluster_arg(AppContext& ctx, const std::string& path);
std::optional<PlanRanks> read_plan_arg(AppContext& ctx, const std::string& path);
// The plan's hosts in rank order (fixed for ring backends); all hosts without a plan.
CheckOptions check_options_for(const std::string& backend, const std::optional<PlanRanks>& plan);
// The check for emit and dot: with a plan, its backend on the hardware it was made for (a failure
// naming what changed otherwise).
CheckReport check_plan_cluster(const TopologyContext& topology, const std::string& backend,
                               const std::optional<PlanRanks>& plan);
// Warnings and notes of the chosen backend and the cluster, on stderr.
void warn_issues(AppContext& ctx, const CheckReport& report);

}  // namespace meshplan
