// The hosts a pipeline faster than a known one may use. A pipeline's token time is its stages'
// layer times, one overhead per rank, the LM head on one host and the hops between ranks (a
// ring: with two ranks or more, each has a hop in and a hop out). So host h takes at least its own
// time for the whole model when alone, and in a longer pipeline at least: every layer at the
// fastest time any linked host has for it, plus h's least excess over that on any layer, plus
// h's overhead, its least hops in and out and the least LM head time of a linked host. A host for
// which both already reach the known time can only be in pipelines no faster, and a search for
// a faster one may leave it out. On a fleet of thousands of hosts of a few fast kinds this leaves
// out every slow host before the search starts.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "solvers/problem/pipeline_cost.hpp"

namespace meshplan {

// The hosts of `cost`, in order, whose least token time in any pipeline is below `latency_s`
// (ties within rounding kept).
std::vector<size_t> hosts_a_faster_pipeline_may_use(const PipelineCostModel& cost,
                                                    double latency_s);

struct KnownPipeline {
  PipelineAssignment assignment;
  double latency_s = 0;
};

// A fast pipeline found without a search, one that any search without pins, a fixed head host
// or a least host count may return: the faster of the fastest host that holds the whole model
// alone (the first of equals) and the fewest fastest hosts (by their time for every layer,
// fastest first) that hold it when each fills its memory in turn, at most `most_ranks` of them
// (--max-hosts). Nothing when neither holds it or the hosts have no links between them.
std::optional<KnownPipeline> fast_known_pipeline(const PipelineCostModel& cost,
                                                 size_t most_ranks = SIZE_MAX);

}  // namespace meshplan
