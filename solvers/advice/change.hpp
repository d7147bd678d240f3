// A change `meshplan advise` prices and the Scenario it edits: a copy of the cluster, the request
// and the model's quantization, with the steps to do physically and the cables to plug.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "lib/cluster/catalog.hpp"
#include "lib/cluster/cluster.hpp"
#include "lib/plan/advice.hpp"
#include "solvers/problem/plan_request.hpp"

namespace meshplan {

struct Scenario {
  Cluster cluster;
  PlanRequest request;
  std::string quant;  // "" = the model as named
  std::vector<std::string> steps;
  std::vector<AdviceCable> cables;
  std::string invalid;  // why the changes cannot be made together (no free port left), or ""
};

struct Change {
  std::string kind;   // cable, move-cable, tb5-cable, network-cable, rdma, bridge, wired-limit,
                      // buy, remove-host, quantization, context, engine
  std::string label;  // one line for the table
  // What two changes may not both use: a cable, a host removed, the model, the engine, a purchase.
  std::vector<std::string> uses;
  std::function<void(Scenario&, const Catalog&)> apply;
  // Sizes of one purchase, smallest first: a larger one is advised only when it is faster.
  std::string group{};
};

struct ChangeSources {
  const Cluster& cluster;
  const Catalog& catalog;
  const PlanRequest& request;
  std::string model;                       // as named on the command line
  std::vector<std::string> quantizations;  // smaller than the current one, smallest last
  std::vector<std::string> buy;            // machine keys; empty = one like each host
  std::string engine;                      // the baseline plan's engine, "" for none
  bool memory_binds = false;               // offer lower-bit versions and shorter contexts
};

}  // namespace meshplan
