#include "lib/emit/torchrun_launch.hpp"

#include <fmt/format.h>

#include "lib/emit/emit_formats.hpp"
#include "lib/emit/nccl_env.hpp"

namespace meshplan {

std::string write_torchrun(const EmitInput& in) {
  LaunchLayout layout = build_launch_layout(in);
  size_t n = layout.nodes.size();
  std::string master = layout.reachable(0,
                                        "torchrun's master (rank 0) needs an address every node "
                                        "reaches");
  int port = launch_port(in, kTorchrunDefaultPort);
  std::string program = in.launch.program.empty() ? "train.py" : in.launch.program;
  std::string out = fmt::format(
      "# torchrun, static rendezvous on {}:{}: run line i on the host it names, rank 0 first.\n",
      master, port);
  for (size_t i = 0; i < n; ++i) {
    out += fmt::format("\n# node {} of {}: {} (rank {})\n", i, n, layout.nodes[i].host->name, i);
    out += shell_command(nccl_variables(layout, i),
                         {"torchrun", fmt::format("--nnodes={}", n), "--nproc_per_node=1",
                          fmt::format("--node_rank={}", i), "--master_addr=" + master,
                          fmt::format("--master_port={}", port), program}) +
           "\n";
  }
  return out;
}

}  // namespace meshplan
