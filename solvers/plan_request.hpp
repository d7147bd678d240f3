// What `meshplan plan` was asked: the strategy and solver, the backend whose links it may use, the
// context and prompt, and the user's constraints (candidate hosts, host counts, layer pins).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "lib/models/expert_load.hpp"

namespace meshplan {

struct LayerPin {
  std::string host;
  int start = 0;  // [start, end)
  int end = 0;
};

struct PlanRequest {
  std::string strategy = "pipeline";
  std::string solver =
      "optimal";                 // optimal, proportional, proportional-v0 (pipeline); ilp (expert)
  std::string backend = "auto";  // auto, ring, jaccl, jaccl-ring, ethernet
  int64_t context = 4096;
  int64_t prompt = 512;
  // Memory kept free on every host beyond weights and KV: a fraction of its usable memory, or
  // bytes (--headroom 10% / 0.1 / 8GiB).
  double headroom_fraction = 0;
  double headroom_bytes = 0;
  std::vector<std::string> hosts;  // candidates, in ring order; empty = every host in file order
  int min_hosts = 0;
  int max_hosts = 0;  // 0 = no limit
  std::vector<LayerPin> pins;
  // Tensor and expert parallel.
  bool allow_uneven = false;              // tensor shares proportional to speed and memory
  std::optional<ExpertLoad> expert_load;  // per-layer expert frequencies; empty = uniform
};

}  // namespace meshplan
