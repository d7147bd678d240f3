// Hostfiles for the two MPI launchers, one line per plan rank in rank order (a plan puts one rank
// on a host, so each host gets one slot and both launchers place rank i on line i's host):
// Open MPI `HOST slots=N max_slots=N` (mpirun(1)), MPICH Hydra `HOST:N` (Hydra's -f file).
// The host is the ssh target without its user, which is what both launchers ssh to.
#pragma once

#include <string>

namespace meshplan {

struct EmitInput;

std::string write_openmpi_hostfile(const EmitInput& in);
std::string write_mpich_hostfile(const EmitInput& in);

}  // namespace meshplan
