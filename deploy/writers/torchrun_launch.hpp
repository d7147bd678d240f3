// torchrun with static rendezvous, one command line per node in the plan's rank order: node i runs
// rank i (one process per host, as the plan places one rank per host), the master address is rank
// 0's management address (every node reaches it; a Thunderbolt /30 would not do), and the NCCL /
// Gloo interface variables of that node go in front of the command. Flags in their underscore
// spelling (--nproc_per_node, --node_rank, --master_addr, --master_port): torch 1.x knows only
// those, torch 2.x takes them beside the dashed ones.
#pragma once

#include <string>

namespace meshplan {

struct EmitInput;

inline constexpr int kTorchrunDefaultPort = 29500;  // torchrun --master-port default

std::string write_torchrun(const EmitInput& in);

struct LaunchLayout;
// The processes torchrun starts on every node (a host's GPUs, else one); a failure naming two
// hosts that differ, since --nproc_per_node is one number.
int torchrun_processes_per_node(const LaunchLayout& layout);

}  // namespace meshplan
