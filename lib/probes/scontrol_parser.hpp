// `scontrol show node -o [NODES]`: one line per node of space-separated Key=Value fields
// (slurm.conf(5) and scontrol(1) name them), read as a discovery source where SSH to the nodes
// is not allowed. What it gives: the node's name and address, its GPUs from Gres
// (`gpu:h100:8`, `gpu:8`, `gpu:a100:4(S:0-1)`, several joined by commas), RealMemory (MiB),
// CPUs and State (a base state such as IDLE, MIXED, ALLOCATED, DOWN, with flags after '+' such
// as DRAIN, and '*' when the node does not respond). Reason, free text, is the last field.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "lib/cluster/catalog.hpp"
#include "lib/cluster/cluster.hpp"

namespace meshplan {

struct SlurmNode {
  std::string name;
  std::string address;   // NodeAddr
  std::string state;     // State as printed: "IDLE", "IDLE+DRAIN", "DOWN*"
  std::string gres;      // Gres as printed, "" for "(null)"
  std::string gpu_type;  // the first GPU type of Gres ("h100"), "" when untyped
  int gpus = 0;          // GPUs of all types in Gres
  uint64_t real_memory_mib = 0;
  int cpus = 0;
  std::string reason;
};

// Every node line; an input error naming `source` for a line without NodeName= or with a field
// that is not a number where one is expected.
std::vector<SlurmNode> parse_scontrol_nodes(std::string_view text, std::string_view source);

// Why the controller will not run work on the node ("DOWN", "DRAIN", "FAIL"), "" when it will.
std::string slurm_unavailable(const SlurmNode& node);

// The catalog chip of a Gres GPU type: the catalog key itself ("h100-sxm"), a short name Slurm
// sites use ("h100", "a100", "l40s", "rtx4090"), or the GPU's product name with '_' for ' '
// (AutoDetect=nvml's "nvidia_h100_80gb_hbm3"). nullptr when none fits.
const ChipSpec* chip_for_gres_type(std::string_view type, const Catalog& catalog);

// The node as a cluster host, marked as from Slurm: Linux, memory from RealMemory, GPUs of the
// mapped chip; `findings` gets an unknown-chip finding for a GPU type the catalog lacks.
Host slurm_node_host(const SlurmNode& node, const Catalog& catalog, std::vector<Finding>& findings);

}  // namespace meshplan
