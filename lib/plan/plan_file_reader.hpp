// The part of a plan file (meshplan.plan/2) that configuration needs: which host is which rank
// and its layer range [start, end). Read through DocNode so that errors name the position.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "lib/cluster/cluster_print.hpp"
#include "lib/core/document.hpp"
#include "lib/plan/plan.hpp"

namespace meshplan {

struct PlanRank {
  int rank = 0;
  std::string host;
  std::optional<std::pair<int, int>> layers;  // [start, end)
  int64_t wired_limit_mb = 0;                 // iogpu.wired_limit_mb the rank needs, 0 = none
  std::optional<double> share;                // tensor plans: the rank's fraction of each layer
  std::vector<std::vector<int>> experts;      // expert plans: the experts it holds, per MoE layer
  // A host of several GPUs: the GPUs each layer is split over, and the layers of each group of
  // tp GPUs in pipeline order (empty for a host of one device).
  int tp = 1;
  std::vector<std::pair<int, int>> gpu_stages;
  // Hybrid plans: the hosts this rank's layers are split over tensor-parallel (itself included).
  std::vector<std::string> tp_group;
};

// One replica of a serving plan: a whole copy of the model on its own hosts, launched on its own,
// which a load balancer in front of all replicas sends `request_share` of the requests.
struct PlanReplica {
  std::vector<std::string> hosts;
  std::string strategy;
  std::string backend;
  double request_share = 0;     // above 0 up to 1; the replicas' shares sum to 1
  std::vector<PlanRank> ranks;  // in rank order, each with its layers
};

// The serving shape a plan chose when it is prefill on some hosts and decode on others.
struct PlanDisaggregation {
  std::vector<std::string> prefill_hosts;
  std::vector<std::string> decode_hosts;
};

// One model of a workload plan and the hosts that serve it (its ranks and its replicas').
struct ModelHosts {
  std::string model;
  std::vector<std::string> hosts;
};

struct PlanRanks {
  std::string backend;    // the plan's backend, "" when absent
  std::string strategy;   // "pipeline", "tensor", "expert", "hybrid", "" when absent
  std::string transport;  // "rdma", "thunderbolt", "network", "local", "" when absent
  // The engine the plan was made for ("" when absent or null) and how it was chosen; a reason
  // starting "none:" says no engine of its hosts runs it.
  std::string engine;
  std::string engine_reason;
  std::optional<ClusterPrint> made_for;  // the hardware it was made for, when recorded
  // The model's shape as the plan recorded it (0 when absent): what the engines' rules read.
  struct ModelShape {
    int layers = 0, attention_heads = 0, kv_heads = 0, hidden_size = 0, routed_experts = 0;
  } model;
  std::vector<PlanRank> ranks;         // in rank order
  std::optional<RoutingInfo> routing;  // routed plans: hosts' flows and the links' flows
  // Serving plans that split the hosts into replicas (`ranks` is then the first one's).
  std::vector<PlanReplica> replicas;
  std::optional<PlanDisaggregation>
      disaggregated;  // its chosen shape, when prefill and decode split
  // Workload plans (meshplan.workload-plan/1): each model's hosts; `ranks` is then their union,
  // without layers, and the strategy and backend are empty.
  std::vector<ModelHosts> models;
  std::vector<std::string> hosts() const;
};

// A plan file, or a workload's plans (each read as a plan). Other keys of the plan are left
// alone (they belong to the planner).
PlanRanks read_plan_ranks(const DocNode& root);

// The whole copies of the model a launch starts: the plan's replicas; for a routed plan whose
// every host holds all layers [0, L), one replica per host with its share of the flow; else none.
std::vector<PlanReplica> launch_replicas(const PlanRanks& plan);

}  // namespace meshplan
