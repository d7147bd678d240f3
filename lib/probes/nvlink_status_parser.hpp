// `nvidia-smi nvlink -s`: the state of every NVLink of every GPU ("Link 3: 26.562 GB/s" when up,
// "Link 3: <inactive>" when down). `topo -m` counts the links a pair was built with; this says how
// many still carry traffic, so a GPU with links down is priced at what it has left.
#pragma once

#include <string_view>
#include <vector>

namespace meshplan {

struct GpuNvlinks {
  int gpu = 0;           // the index nvidia-smi prints ("GPU 1: ...")
  int up = 0;            // links with a rate
  int down = 0;          // links listed as <inactive>
  double rate_GBps = 0;  // the slowest rate among the links that are up, GB/s
};

// One entry per GPU listed, in order; a GPU without NVLink has no link lines (up = down = 0).
// Throws ProbeParseError on a link line before any GPU line or a link whose rate is unreadable.
std::vector<GpuNvlinks> parse_nvlink_status(std::string_view text);

}  // namespace meshplan
