#include "deploy/writers/mpi_hostfiles.hpp"

#include <fmt/format.h>

#include "deploy/layout/launch_nodes.hpp"

namespace meshplan {
namespace {

// A host's slots are the processes it runs: one per GPU of a host of several (as torchrun's
// --nproc_per_node and DeepSpeed's slots, which count GPUs), else one.
int total_processes(const LaunchLayout& layout) {
  int total = 0;
  for (const LaunchNode& node : layout.nodes)
    total += node.processes();
  return total;
}

}  // namespace

std::string write_openmpi_hostfile(const EmitInput& in) {
  const LaunchLayout& layout = in.layout();
  std::string out = fmt::format(
      "# Open MPI hostfile, hosts in rank order, a slot per process (one per GPU of a host).\n"
      "# Run mpirun on rank 0's host: Open MPI maps the host it runs on first.\n"
      "#   mpirun --hostfile FILE -np {} --map-by slot PROGRAM\n",
      total_processes(layout));
  for (const LaunchNode& node : layout.nodes)
    out += fmt::format("{} slots={} max_slots={}  # rank {}: {}\n",
                       hostfile_word(node.ssh_host, "ssh target", node.host->name),
                       node.processes(), node.processes(), node.rank, node.host->name);
  return out;
}

std::string write_mpich_hostfile(const EmitInput& in) {
  const LaunchLayout& layout = in.layout();
  std::string out = fmt::format(
      "# MPICH (Hydra) host file, hosts in rank order, a process per GPU:\n"
      "#   mpiexec -f FILE -n {} PROGRAM\n",
      total_processes(layout));
  for (const LaunchNode& node : layout.nodes)
    out += fmt::format("{}:{}\n", hostfile_word(node.ssh_host, "ssh target", node.host->name),
                       node.processes());
  return out;
}

}  // namespace meshplan
