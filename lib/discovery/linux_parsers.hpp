// Linux host facts: /proc/meminfo, `nvidia-smi --query-gpu=... --format=csv`, `ip -j addr show`
// and /etc/os-release.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace meshplan {

// MemTotal in bytes (meminfo's "kB" are KiB). Throws ProbeParseError without a MemTotal line.
uint64_t parse_meminfo_total(std::string_view text);

struct NvidiaGpu {
  int index = 0;
  std::string name;
  std::string uuid;
  std::string pci_bus;
  uint64_t memory = 0;  // bytes (memory.total is MiB)
};

// The columns discovery asks for, in the order of its nvidia-smi query.
const std::vector<std::string>& nvidia_smi_columns();

// CSV with ", " separators, with or without a header line and with or without units
// ("81559 MiB" or "81559"). A header names the columns; without one `columns` gives their order.
// Throws ProbeParseError on rows that do not fit.
std::vector<NvidiaGpu> parse_nvidia_smi(
    std::string_view text, const std::vector<std::string>& columns = nvidia_smi_columns());

struct LinuxInterface {
  std::string name;
  std::string link_type;  // "ether", "loopback", ...
  std::string operstate;  // "UP", "DOWN", "UNKNOWN"
  bool up = false;        // the UP flag
  std::string ipv4;       // first IPv4 address
  int prefix = 0;
};

// `ip -j addr show` (compact or pretty JSON). Throws ProbeParseError when it is not that JSON.
std::vector<LinuxInterface> parse_ip_addr(std::string_view json_text);

struct OsRelease {
  std::string id;          // "debian"
  std::string version_id;  // "12"
  std::string pretty_name;
};

OsRelease parse_os_release(std::string_view text);

}  // namespace meshplan
