// `emit routing --plan P` for a routed plan (plan --strategy routed): the routing table a request
// scheduler follows, as JSON (meshplan.routing/1, docs/routing-table.md). Requests enter at the
// hosts holding the first layer, in proportion to `entry` weights; after its range a host passes
// each token to one of `next` by weight, or returns it (`exit`) when it holds the last layer.
// Weights are the plan's max-flow figures divided by the host's flow, so they sum to 1 per host.
#pragma once

#include <optional>
#include <string>

#include "lib/plan/plan_file_reader.hpp"

namespace meshplan {

inline constexpr const char* kRoutingSchema = "meshplan.routing/1";

// A failure (exit 1) for a plan without routing (not made with --strategy routed).
std::string write_routing_table(const std::optional<PlanRanks>& plan);

}  // namespace meshplan
