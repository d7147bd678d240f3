// What `check --live` reads on each Linux host of an engine's launch (vLLM, llama.cpp RPC), beside
// its interfaces: the ephemeral port range (where NCCL, Gloo and ZMQ listen), the GPUs as
// nvidia-smi lists them, the RDMA ports as ibv_devinfo reports them, and the versions that must
// match across nodes (Python; torch with the CUDA runtime and NCCL it carries; vLLM; Ray). A tool
// that is missing is recorded as missing, for a note.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "lib/probes/ibv_parser.hpp"

namespace meshplan {

struct SmiGpu {
  std::string name;         // "NVIDIA H100 80GB HBM3"
  uint64_t memory_mib = 0;  // memory.total
};

struct LinuxLaunchFacts {
  std::optional<std::pair<int, int>> port_range;  // net.ipv4.ip_local_port_range
  bool nvidia_smi = false;                        // on the host
  std::vector<SmiGpu> gpus;
  std::string nvidia_smi_error;  // its first line when it listed no GPU
  bool ibv_devinfo = false;      // on the host
  std::vector<IbvPort> rdma;
  bool python = false;
  // "python", "torch", "cuda", "nccl", "vllm", "ray": those Python could read.
  std::map<std::string, std::string> versions;
};

// The lines a Linux host runs after `ip -j addr show` (exposed for tests); `ray`: also Ray's
// version. Sections: @@portrange, @@gpus or @@nogpus, @@ibv or @@noibv, @@v_NAME or @@nopython.
std::string linux_launch_script(bool ray);

// The facts from the script's sections.
LinuxLaunchFacts parse_linux_launch_facts(const std::map<std::string, std::string>& sections);

// `nvidia-smi --query-gpu=name,memory.total --format=csv,noheader` ("NAME, 81559 MiB" lines).
std::vector<SmiGpu> parse_smi_gpus(std::string_view text);

}  // namespace meshplan
