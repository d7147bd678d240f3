// A serving plan of several replicas (or a routed plan whose hosts all hold the whole model) is
// launched as one complete launch per replica: the emit formats of the replica's engine, run on
// an input whose plan is that replica alone, checked over its hosts alone; nginx in front shares
// the requests by the plan's weights.
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "deploy/layout/launch_nodes.hpp"

namespace meshplan {

struct ReplicaLaunch {
  size_t index = 0;  // from 1: its folder is replica-<index>/
  PlanReplica replica;
  std::string engine;             // mlx-lm, exo, llama-rpc or vllm
  std::optional<PlanRanks> plan;  // the replica as a plan of its own
  CheckReport report;             // its backend, checked over its hosts in rank order
  LaunchOptions launch;           // exo's namespace apart from the other replicas'
  std::string serving_host;       // the host whose HTTP server answers for the replica
  std::string address;            // that host's management address
  int port = 0;                   // and the engine's HTTP port
  // The replica's launch layout, built once for every writer of its launch (replica_input).
  std::shared_ptr<LaunchLayoutSlot> layout_slot = std::make_shared<LaunchLayoutSlot>();
};

// Where `engine`'s HTTP server answers in `layout`: the node (mlx.launch's rank 0, which runs
// mlx_lm.server; vLLM's node 0; llama-server on the last rank; exo's first host) and the port.
struct ServingEndpoint {
  size_t node = 0;
  int port = 0;
};
ServingEndpoint serving_endpoint(const EmitInput& in, const LaunchLayout& layout,
                                 std::string_view engine);

// The URL a one-copy plan's engine answers on once launched: http://ADDR:PORT, ADDR the serving
// host's management address. A plan of replicas answers behind nginx, on a host the plan does
// not name: an input error that asks for its URL.
std::string plan_endpoint_url(const EmitInput& in);

// The engine of a replica: the plan's when it names one (an input error when it does not run on
// the replica's hosts), else the one its hosts run (`default_engine`).
std::string replica_engine(const EmitInput& in, const PlanReplica& replica);

// The emit formats of an engine's launch, by name (mlx-lm: mlx-hostfile, mlx-env, mlx-launch).
std::vector<std::string_view> engine_format_names(std::string_view engine);

// Each replica of the plan (`launch_replicas`) checked and placed; empty for a plan of one copy.
// The input of a replica refers into the vector's element: keep the vector while it is used.
std::vector<ReplicaLaunch> replica_launches(const EmitInput& in);
EmitInput replica_input(const EmitInput& in, const ReplicaLaunch& replica);

// `emit nginx`: the config of nginx over the replicas' HTTP servers
// (deploy/writers/nginx_upstream.*); an input error naming the plan for a plan of one copy.
std::string write_nginx(const EmitInput& in);
// The same over replicas already placed (`emit all` places them once).
std::string nginx_for_replicas(const std::vector<ReplicaLaunch>& replicas);

}  // namespace meshplan
