#include "lib/emit/mpi_hostfiles.hpp"

#include <fmt/format.h>

#include "lib/emit/emit_formats.hpp"

namespace meshplan {

std::string write_openmpi_hostfile(const EmitInput& in) {
  LaunchLayout layout = build_launch_layout(in);
  size_t n = layout.nodes.size();
  std::string out = fmt::format(
      "# Open MPI hostfile, one rank per host in rank order. Run mpirun on rank 0's host: Open "
      "MPI\n"
      "# maps the host it runs on first.\n"
      "#   mpirun --hostfile FILE -np {} --map-by slot PROGRAM\n",
      n);
  for (const LaunchNode& node : layout.nodes)
    out += fmt::format("{} slots=1 max_slots=1  # rank {}: {}\n",
                       hostfile_word(node.ssh_host, "ssh target", node.host->name), node.rank,
                       node.host->name);
  return out;
}

std::string write_mpich_hostfile(const EmitInput& in) {
  LaunchLayout layout = build_launch_layout(in);
  std::string out = fmt::format(
      "# MPICH (Hydra) host file, one rank per host in rank order:\n"
      "#   mpiexec -f FILE -n {} PROGRAM\n",
      layout.nodes.size());
  for (const LaunchNode& node : layout.nodes)
    out += fmt::format("{}:1\n", hostfile_word(node.ssh_host, "ssh target", node.host->name));
  return out;
}

}  // namespace meshplan
