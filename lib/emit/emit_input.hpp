// What every format of lib/emit writes from: the cluster, its topology (link graph, Thunderbolt
// fabric, /30 plan), the check report with the chosen backend, the plan's ranks when a plan was
// given, and the launch options.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "lib/cluster/cluster.hpp"
#include "lib/cluster/mlx_backend.hpp"
#include "lib/emit/mlx_env.hpp"
#include "lib/plan/plan_ranks.hpp"
#include "lib/topologies/backend_rules.hpp"
#include "lib/topologies/check_report.hpp"

namespace meshplan {

// Command-line choices shared by the launcher formats; 0 / "" mean the engine's default.
struct LaunchOptions {
  int port = 0;         // torchrun/vllm master port, rpc-server port, ray head port, exo API
  std::string program;  // what torchrun / deepspeed start ("train.py" when empty)
  std::string model;    // the model path for llama.cpp, vLLM and mlx-lm ("MODEL" when empty)
  std::string user;     // ssh user for Ray and Ansible when the ssh target names none
  std::string engine;   // what `emit slurm` starts: vllm (when empty), torchrun or llama-rpc
  // exo's --namespace: "" = the cluster's name; each replica of a plan gets its own, so that two
  // replicas on one network do not discover each other.
  std::string exo_namespace;
  // The Slurm allocation's nodes (--allocation, else SLURM_JOB_NODELIST), expanded; empty: none.
  std::vector<std::string> allocation;
};

struct EmitInput {
  const Cluster& cluster;
  const TopologyContext& topology;
  const CheckReport& report;  // report.chosen is the backend in use
  const std::optional<PlanRanks>& plan;
  std::string requested_backend =
      std::string(name(MlxBackend::kAuto));  // as given on the command line
  std::vector<std::string> envs;             // --env KEY=VALUE for every rank
  MlxEnvOptions env_options;
  LaunchOptions launch{};
};

}  // namespace meshplan
