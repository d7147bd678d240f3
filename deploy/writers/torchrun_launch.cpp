#include "deploy/writers/torchrun_launch.hpp"

#include <fmt/format.h>

#include "deploy/layout/launch_nodes.hpp"
#include "deploy/writers/nccl_env.hpp"
#include "lib/core/error.hpp"

namespace meshplan {

int torchrun_processes_per_node(const LaunchLayout& layout) {
  // A plan's host of several GPUs runs one process per GPU; torchrun starts as many on each node.
  const int per_node = layout.nodes.empty() ? 1 : layout.nodes.front().processes();
  for (const LaunchNode& node : layout.nodes)
    if (node.processes() != per_node)
      throw failure(
          "torchrun starts the same number of processes on every node, but the plan runs {} on "
          "{} and {} on {}; plan hosts of one kind together (--hosts)",
          per_node, layout.nodes.front().host->name, node.processes(), node.host->name);
  return per_node;
}

std::string write_torchrun(const EmitInput& in) {
  const LaunchLayout& layout = in.layout();
  size_t n = layout.nodes.size();
  // On the interface NCCL and Gloo use, as the plan's link is (launch_nodes.hpp).
  std::string master = rendezvous_address(
      layout, 0, "torchrun's master (rank 0) needs an address every node reaches");
  int port = launch_port(in, kTorchrunDefaultPort);
  std::string program = in.launch.program.empty() ? "train.py" : in.launch.program;
  const int per_node = torchrun_processes_per_node(layout);
  std::string out = fmt::format(
      "# torchrun, static rendezvous on {}:{}: run line i on the host it names, rank 0 first.\n",
      master, port);
  for (size_t i = 0; i < n; ++i) {
    out += fmt::format("\n# node {} of {}: {} (rank {})\n", i, n, layout.nodes[i].host->name, i);
    out += shell_command(
               nccl_variables(layout, i),
               {"torchrun", fmt::format("--nnodes={}", n),
                fmt::format("--nproc_per_node={}", per_node), fmt::format("--node_rank={}", i),
                "--master_addr=" + master, fmt::format("--master_port={}", port), program}) +
           "\n";
  }
  return out;
}

}  // namespace meshplan
