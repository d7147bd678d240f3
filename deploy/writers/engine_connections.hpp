// The TCP connections an engine's launch over Linux hosts opens between its nodes, as its launch
// files name them (`check --live` tries each before the launch): vLLM's master port (every node
// to node 0, its multiprocessing launch) or Ray's GCS port on the head (when Ray starts the
// nodes), vLLM's API port, llama.cpp's rpc-server ports (the main host to each server); and one
// pair of nodes after another, for the ephemeral ports NCCL, Gloo and vLLM's ZMQ sockets open.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace meshplan {

struct EmitInput;
struct LaunchLayout;

struct EngineConnection {
  std::string listen_host, connect_host;  // cluster host names
  std::string address;                    // where listen_host listens, as the launch names it
  int port = 0;                           // 0 for an ephemeral port (chosen on the host)
  std::string what;                       // "vLLM --master-port", "Ray GCS", ...
};

// vLLM's nodes are started by Ray (ray-cluster.yaml) when they run unequal numbers of ranks:
// vLLM's own multi-node launch (--nnodes) needs the same number on every node.
bool vllm_nodes_started_by_ray(const LaunchLayout& layout);

// The fixed-port connections of `engine`'s launch ("vllm", "llama-rpc"); empty for one node or
// another engine. Throws what the writers throw when the launch cannot be laid out.
std::vector<EngineConnection> engine_connections(const EmitInput& in, std::string_view engine);

// One connection per pair of nodes (i < j: j connects to i on i's data address) with port 0:
// NCCL's, Gloo's and vLLM's ZMQ sockets listen on ports the kernel picks from
// ip_local_port_range.
std::vector<EngineConnection> ephemeral_connections(const LaunchLayout& layout);

// A port in the upper half of [low, high] for pair `pair`, the same on every run.
int ephemeral_probe_port(int low, int high, size_t pair);

}  // namespace meshplan
