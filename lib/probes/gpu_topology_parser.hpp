// `nvidia-smi topo -m`: how each pair of GPUs in a host is joined (NVLink with its link count,
// or the PCIe path: PIX, PXB, PHB, NODE, SYS) and which NIC sits nearest each GPU. The planner
// needs it to price a tensor-parallel group inside a host; the matrix is the only place
// nvidia-smi states it.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace meshplan {

struct GpuTopology {
  std::vector<std::string> gpus;  // "GPU0", "GPU1", ... in matrix order
  std::vector<std::string> nics;  // "NIC0", ... (their mlx5_* names when the legend gives them)
  // links[a][b]: "X" on the diagonal, "NV18", "PIX", "PXB", "PHB", "NODE" or "SYS".
  std::vector<std::vector<std::string>> links;
  // nic_paths[g][n]: the path from GPU g to NIC n ("PIX", ...).
  std::vector<std::vector<std::string>> nic_paths;
  std::vector<std::string> numa;  // per GPU, its NUMA affinity ("0", "N/A")

  // NVLink count between two GPUs (NV# → #), 0 for a PCIe path.
  int nvlinks(size_t a, size_t b) const;
  // The NIC nearest GPU g: the first with the shortest path (PIX < PXB < PHB < NODE < SYS), or
  // -1 when the matrix has no NIC columns.
  int nearest_nic(size_t g) const;
};

// Accepts the escape sequences nvidia-smi prints on a terminal, the "nvidia-smi topo -m" echo
// line of some captures, and the legend. Throws ProbeParseError when there is no GPU matrix or a
// row does not have one entry per column.
GpuTopology parse_gpu_topology(std::string_view text);

}  // namespace meshplan
