// What check, dot, emit and setup share: reading the cluster and an optional plan, and echoing
// a check's warnings on stderr (deploy/layout/plan_match checks a cluster for a plan).
#pragma once

#include <optional>
#include <string>

#include "app/commands.hpp"
#include "lib/plan/plan_file_reader.hpp"
#include "topologies/backend_rules.hpp"

namespace meshplan {

Cluster read_cluster_arg(AppContext& ctx, const std::string& path);
std::optional<PlanRanks> read_plan_arg(AppContext& ctx, const std::string& path);
// Warnings and notes of the chosen backend and the cluster, on stderr.
void warn_issues(AppContext& ctx, const CheckReport& report);

}  // namespace meshplan
