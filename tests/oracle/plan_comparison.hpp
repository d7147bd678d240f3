// What the oracle read from the launch files against what the plan says: the hosts, the
// processes on each, the layers and the experts each holds.
#pragma once

#include <vector>

#include "lib/cluster/cluster.hpp"
#include "lib/plan/plan_file_reader.hpp"
#include "tests/oracle/launch_oracle.hpp"

namespace meshplan::oracle {

// Every difference between each launch of `reading` and the plan's ranks (a replica folder's
// launch against that replica's ranks), as violations of the rules "launch-hosts",
// "rank-order", "ranks-per-host", "layers" and "experts".
std::vector<Violation> compare_with_plan(const OracleReading& reading, const PlanRanks& plan,
                                         const Cluster& cluster);

}  // namespace meshplan::oracle
