#include "deploy/writers/llama_rpc.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "deploy/layout/launch_nodes.hpp"
#include "lib/core/engine_rules.hpp"

namespace meshplan {
namespace {

// llama.cpp's devices on one host: rpc-server exposes every accelerator of its host, or one CPU
// device when it has none (tools/rpc/README.md); a Mac has one Metal device.
int devices_of(const LaunchNode& n) {
  return n.cuda_gpus() > 0 ? n.cuda_gpus() : 1;
}

// The node's layers over its devices, in device order: the plan's groups of GPUs when it has one
// per device, else as even as llama.cpp's layer split allows (the first devices one more).
std::vector<int> device_layers(const LaunchNode& n) {
  const int devices = devices_of(n);
  if (static_cast<int>(n.gpu_stages.size()) == devices) {
    std::vector<int> out;
    for (const auto& [a, b] : n.gpu_stages)
      out.push_back(b - a);
    return out;
  }
  const int count = n.layers->second - n.layers->first;
  std::vector<int> out(static_cast<size_t>(devices), count / devices);
  for (int k = 0; k < count % devices; ++k)
    ++out[static_cast<size_t>(k)];
  return out;
}

std::string device_text(const LaunchNode& n) {
  if (n.cuda_gpus() > 0)
    return fmt::format("{} CUDA device{}", n.cuda_gpus(), n.cuda_gpus() == 1 ? "" : "s");
  return n.mac ? "its Metal device" : "its CPU device";
}

}  // namespace

// llama.cpp's device order and output layer (lib/core/engine_rules.hpp llama_tensor_split): the
// rpc-servers in --rpc order, then the main host, the last rank, which runs the output layer.
LlamaRpcLaunch llama_rpc_launch(const EmitInput& in, const LaunchLayout& layout) {
  require_plan(in, "llama-rpc", "--tensor-split comes from the plan's layer ranges");
  layer_counts(layout, "llama-rpc");  // refuses plans that do not split by layers
  size_t n = layout.nodes.size();
  size_t main = n - 1;
  const LaunchNode& head = layout.nodes[main];
  int layers = head.layers->second;
  int port = launch_port(in, kRpcServerDefaultPort);
  std::string model = in.launch.model.empty() ? "model.gguf" : in.launch.model;
  LlamaRpcLaunch out;
  std::vector<int> split;
  auto add_devices = [&split](const LaunchNode& node) {
    for (int c : device_layers(node))
      split.push_back(c);
  };
  for (size_t i = 0; i < main; ++i) {
    std::string addr = link_address(in, layout, i, main,
                                    "the main host connects to each rpc-server on this address");
    out.endpoints.push_back(fmt::format("{}:{}", addr, port));
    out.servers.push_back({"rpc-server", "-H", addr, "-p", std::to_string(port)});
    add_devices(layout.nodes[i]);
  }
  // A main host without an accelerator has no device of its own: its CPU joins through an
  // rpc-server of its own, listed last.
  if (!head.mac && head.cuda_gpus() == 0) {
    out.endpoints.push_back(fmt::format("127.0.0.1:{}", port));
    out.local_server = {"rpc-server", "-H", "127.0.0.1", "-p", std::to_string(port)};
  }
  add_devices(head);
  split = llama_tensor_split(split);
  out.main = {"llama-server", "-m", model, "-ngl", std::to_string(llama_gpu_layers(layers))};
  if (!out.endpoints.empty()) {
    out.main.push_back("--rpc");
    out.main.push_back(fmt::format("{}", fmt::join(out.endpoints, ",")));
  }
  if (split.size() > 1) {
    out.main.push_back("--tensor-split");
    out.main.push_back(fmt::format("{}", fmt::join(split, ",")));
  }
  out.main.push_back("--host");
  out.main.push_back("0.0.0.0");
  // Named, not left to the build's default: upstream's is 8080, Debian's llama-server listens on
  // another port unless told.
  out.main.push_back("--port");
  out.main.push_back(std::to_string(kLlamaServerPort));
  return out;
}

std::string write_llama_rpc(const EmitInput& in) {
  require_plan(in, "llama-rpc", "--tensor-split comes from the plan's layer ranges");
  const LaunchLayout& layout = in.layout();
  LlamaRpcLaunch launch = llama_rpc_launch(in, layout);
  size_t n = layout.nodes.size();
  size_t main = n - 1;
  const LaunchNode& head = layout.nodes[main];
  int layers = head.layers->second;
  std::string out = fmt::format(
      "# llama.cpp RPC for {} ranks: start every rpc-server first, then the main command on {}.\n"
      "# -ngl {} offloads all {} layers and the output layer; --tensor-split has one entry per "
      "device\n# (each rpc-server's, in --rpc order, then the main host's), the last one counting "
      "the output layer.\n",
      n, head.host->name, layers + 1, layers);
  for (size_t i = 0; i < main; ++i) {
    const LaunchNode& node = layout.nodes[i];
    out += fmt::format("\n# rank {}: on {}, layers [{}, {}) over {}\n", i, node.host->name,
                       node.layers->first, node.layers->second, device_text(node));
    out += shell_command({}, launch.servers[i]) + "\n";
  }
  out += fmt::format(
      "\n# rank {}: on {}, layers [{}, {}) over {} (main; llama-server answers on "
      "every interface, port 8080)\n",
      main, head.host->name, head.layers->first, head.layers->second, device_text(head));
  if (!launch.local_server.empty()) out += shell_command({}, launch.local_server) + "\n";
  out += shell_command({}, launch.main) + "\n";
  return out;
}

}  // namespace meshplan
