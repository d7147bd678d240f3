// The GPU links of a host in a meshplan.cluster/1 document: the matrix `nvidia-smi topo -m`
// prints (gpu_links), or by hand `nvlink: <count>` or `gpu_fabric: nvswitch|pcie`.
#pragma once

#include "lib/cluster/cluster.hpp"
#include "lib/core/document.hpp"

namespace meshplan {

// Fills h.gpu_links from host entry N, whose GPUs are read already.
void read_gpu_links(const DocNode& n, Host& h);

}  // namespace meshplan
