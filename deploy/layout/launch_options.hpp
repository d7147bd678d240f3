// The command-line choices of a launch that every format may read: mlx.launch's options and those
// the launcher formats share.
#pragma once

#include <string>
#include <vector>

namespace meshplan {

// mlx.launch's options, as `emit mlx-env` and the MLX launch formats take them.
struct MlxEnvOptions {
  int starting_port = 32323;   // mlx.launch --starting-port
  int connections_per_ip = 1;  // mlx.launch --connections-per-ip (ring)
  bool verbose = false;        // mlx.launch --verbose: MLX_RING_VERBOSE=1
  int nccl_port = 12345;       // mlx.launch --nccl-port (nccl)
};

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

}  // namespace meshplan
