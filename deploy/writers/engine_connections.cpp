#include "deploy/writers/engine_connections.hpp"

#include "deploy/layout/launch_nodes.hpp"
#include "deploy/writers/llama_rpc.hpp"
#include "deploy/writers/ray_cluster.hpp"
#include "deploy/writers/vllm_launch.hpp"
#include "lib/plan/engine_kind.hpp"

namespace meshplan {

bool vllm_nodes_started_by_ray(const LaunchLayout& layout) {
  for (const LaunchNode& n : layout.nodes)
    if (n.processes() != layout.nodes.front().processes()) return true;
  return false;
}

namespace {

// vLLM: node 0 is the master (multiprocessing) or Ray's head, and serves the API; the last node
// stands for a client of the API.
std::vector<EngineConnection> vllm_connections(const EmitInput& in, const LaunchLayout& layout) {
  std::vector<EngineConnection> out;
  const std::string& head = layout.nodes[0].host->name;
  if (vllm_nodes_started_by_ray(layout)) {
    // As ray-cluster.yaml writes it: with vLLM on Ray, on the interface NCCL and Gloo use.
    const std::string why = "Ray's head (rank 0) needs an address every node reaches";
    const std::string address =
        ray_runs_an_engine(in) ? rendezvous_address(layout, 0, why) : layout.reachable(0, why);
    for (size_t i = 1; i < layout.nodes.size(); ++i)
      out.push_back(
          {head, layout.nodes[i].host->name, address, launch_port(in, kRayDefaultPort), "Ray GCS"});
  } else {
    // As vllm_node_words writes them (the rendezvous on the data interface); without the plan's
    // shape, so that a check with no plan still tries them.
    const std::string master = rendezvous_address(
        layout, 0, "vLLM's master (node rank 0) needs an address every node reaches");
    for (size_t i = 1; i < layout.nodes.size(); ++i)
      out.push_back({head, layout.nodes[i].host->name, master,
                     launch_port(in, kVllmDefaultMasterPort), "vLLM --master-port"});
  }
  out.push_back({head, layout.nodes.back().host->name,
                 served_address(layout, 0, "vLLM's API (node 0) is reached on this address"),
                 kVllmServePort, "vLLM API (vllm serve --port)"});
  return out;
}

// llama.cpp RPC: the main host (the last rank) connects to each rank's rpc-server.
std::vector<EngineConnection> llama_rpc_connections(const EmitInput& in,
                                                    const LaunchLayout& layout) {
  std::vector<EngineConnection> out;
  const LlamaRpcLaunch launch = llama_rpc_launch(in, layout);
  const std::string& main = layout.nodes.back().host->name;
  for (size_t i = 0; i < launch.servers.size(); ++i) {
    const std::vector<std::string>& words = launch.servers[i];  // rpc-server -H ADDR -p PORT
    out.push_back(
        {layout.nodes[i].host->name, main, words[2], std::stoi(words[4]), "llama.cpp rpc-server"});
  }
  return out;
}

}  // namespace

std::vector<EngineConnection> engine_connections(const EmitInput& in, std::string_view engine) {
  const LaunchLayout& layout = in.layout();
  if (layout.nodes.size() < 2) return {};
  if (is_engine(engine, EngineKind::kVllm)) return vllm_connections(in, layout);
  if (is_engine(engine, EngineKind::kLlamaRpc)) return llama_rpc_connections(in, layout);
  return {};
}

std::vector<EngineConnection> ephemeral_connections(const LaunchLayout& layout) {
  std::vector<EngineConnection> out;
  for (size_t i = 0; i < layout.nodes.size(); ++i)
    for (size_t j = i + 1; j < layout.nodes.size(); ++j) {
      const LaunchNode& a = layout.nodes[i];
      const std::string address = rendezvous_address(layout, i, "NCCL and Gloo reach each node");
      out.push_back({a.host->name, layout.nodes[j].host->name, address, 0,
                     "an ephemeral port (NCCL, Gloo, vLLM's ZMQ)"});
    }
  return out;
}

int ephemeral_probe_port(int low, int high, size_t pair) {
  if (low < 1 || high > 65535 || high < low) low = 32768, high = 60999;  // Linux's default
  const int first = low + (high - low + 1) / 2;
  const int span = high - first + 1;
  return first + static_cast<int>((pair * 7919 + 4099) % static_cast<size_t>(span));
}

}  // namespace meshplan
