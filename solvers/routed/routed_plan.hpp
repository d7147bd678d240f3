// `plan --strategy routed` (issue 19): each candidate host holds one range of layers (or is left
// out) and requests are routed through any chain of hosts whose ranges join, for the most
// aggregate tokens/s (the maximum flow, solvers/routed_search.hpp). Host tables come from
// `--profile` or the cost model at the plan's streams per host.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "lib/cluster/catalog.hpp"
#include "lib/cluster/cluster.hpp"
#include "lib/core/clock.hpp"
#include "lib/models/model.hpp"
#include "lib/plan/plan.hpp"
#include "solvers/problem/plan_request.hpp"
#include "solvers/problem/throughput_profile.hpp"
#include "solvers/routed/routed_flow.hpp"

namespace meshplan {

struct RoutedRequest {
  std::optional<ThroughputProfile> profile;
  std::string profile_where;  // the file, for messages
  std::string model_id;       // what the user named with -m, matched against the profile's model
  // The search's budget of work (RoutedOptions::time_limit_s), for each count of streams per
  // host it searches.
  double time_limit_s = 1.5;
  // Where the routed planner's time went (step, seconds) is added here when set, for -v.
  std::vector<std::pair<std::string, double>>* timings = nullptr;
  // --strategy auto with --objective throughput also plans routed serving (over two hosts or
  // more) and keeps it when it serves more. Off for callers that plan groups (workloads).
  bool consider_in_auto = false;
};

// The most streams per host tried when --concurrency is not given.
inline constexpr int kRoutedMaxStreams = 256;

// The routed plan. Throws a failure when no host holds a layer, or no layout reaches the last
// layer.
Plan plan_routed(const Cluster& cluster, const Catalog& catalog, const ModelDesc& model,
                 const PlanRequest& request, const RoutedRequest& routed, const Clock& clock);

}  // namespace meshplan
