// Seeded random pipeline instances for the solvers' tests: a random model, hosts and links;
// some hosts are exact copies of others (symmetry), some links are missing, memory is often
// tight, and some instances carry pins or host-count limits.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "lib/models/model.hpp"
#include "solvers/problem/pipeline_cost.hpp"
#include "solvers/problem/search_space.hpp"

namespace meshplan::testing {

struct RandomPipeline {
  std::unique_ptr<ModelDesc> model;
  std::unique_ptr<PipelineCostModel> cost;
  PipelineConstraints constraints;
  std::string describe;  // the seed and the instance's size, for failure messages
};

// Up to `max_hosts` hosts and `max_layers` layers; `constraints`: some instances get pins or
// host-count limits; `head_last`: the LM head on the last rank.
RandomPipeline random_pipeline(uint64_t seed, int max_hosts, int max_layers, bool constraints,
                               bool head_last = false);

// Every pair of `n` hosts linked by one Thunderbolt 5 cable's figures (50 us, 6.5 GB/s).
std::vector<std::vector<std::optional<LinkFigures>>> tb5_links(size_t n);
// A link of these figures; `cable` -1 for a network.
LinkFigures link_figures(const char* name, double latency_s, double bandwidth, int cable);

double uniform(std::mt19937_64& rng, double a, double b);
int pick(std::mt19937_64& rng, int a, int b);

}  // namespace meshplan::testing
